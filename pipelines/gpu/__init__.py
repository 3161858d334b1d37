"""GPU-provider listings (kind `gpu`): provider offers as printed, normalised to canonical GPU names and USD per
GPU-hour (FX conversion), versioned per source."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warehouse.sql_files import SchemaPart


def _upgrade(con: Any, part: SchemaPart) -> None:
    """Rows landed before the current tables: see the landing's upgrade."""
    from pipelines.gpu.landing import upgrade_gpu_history  # late: only a schema change needs the landing

    upgrade_gpu_history(con, part)


# The kind its sources declare (sources.toml, through their adapter); its Kind object is `kind.KIND`.
SOURCE_KIND: str | None = "gpu"
SCHEMA = SchemaPart("gpu", Path(__file__).resolve().parent / "sql", _upgrade)
