"""AWS's own price-list files (kind `pricelist`): the EC2 region index, the regional offer CSVs, the Savings Plans
rates, the SageMaker offer and the public spot feed, versioned per region.

Modules: `region_index` (which regional files exist, and their version stamps), `offer_csv` (one regional CSV
read in DuckDB into a `PriceListBatch`), `regional_csv` (what the Savings Plans and SageMaker readers share),
`savings_plan_csv` and `sagemaker_csv` (their files), `spot` (the spot feed), `families` (the instance-family
allowlist) and `curated` (ratecard's curated accelerator counts and memory, cross-checked against the price list's
`gpu`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warehouse.sql_files import SchemaPart


def _upgrade(con: Any, part: SchemaPart) -> None:
    """Rows landed before the current tables: see the landing's upgrade."""
    from pipelines.pricelist.landing import upgrade_pricelist_history  # late: only a schema change needs it

    upgrade_pricelist_history(con, part)


# The kind its sources declare (sources.toml, through their adapter); its Kind object is `kind.KIND`.
SOURCE_KIND: str | None = "pricelist"
SCHEMA = SchemaPart("pricelist", Path(__file__).resolve().parent / "sql", _upgrade)
