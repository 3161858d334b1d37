"""Accelerator specifications (kind `spec`): chips, configurations, compute figures, the Neuron SDK release, launch
dates, vendor claims (flagged as claims) and the curated NVIDIA reference, versioned per source."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warehouse.sql_files import SchemaPart


def _upgrade(con: Any, part: SchemaPart) -> None:
    """Rows landed before the current tables: see the landing's upgrade."""
    from pipelines.specs.landing import upgrade_spec_history  # late: only a schema change needs the landing

    upgrade_spec_history(con, part)


# The kind its sources declare (sources.toml, through their adapter); its Kind object is `kind.KIND`.
SOURCE_KIND: str | None = "spec"
SCHEMA = SchemaPart("specs", Path(__file__).resolve().parent / "sql", _upgrade)
