"""The Neuron software gate (kind `neuron_gate`): which Neuron SDK release ships which framework package for which
instance families (AWS's package manifest), and what status the documentation gives each one (recommended,
supported, beta, archived, not included, end of support), each statement quoted. The two are kept side by side and
their disagreements are reported, never reconciled by guessing."""

from __future__ import annotations

from pathlib import Path

from warehouse.sql_files import SchemaPart

# The kind its sources declare (sources.toml, through their adapter); its Kind object is `kind.KIND`.
SOURCE_KIND: str | None = "neuron_gate"
SCHEMA = SchemaPart("neuron_gate", Path(__file__).resolve().parent / "sql")
