"""ECB euro reference rates, facts by currency and date (kind `fx`): GPU prices convert to USD with them."""

from __future__ import annotations

from pathlib import Path

from warehouse.sql_files import SchemaPart

# The kind its sources declare (sources.toml, through their adapter); its Kind object is `kind.KIND`.
SOURCE_KIND: str | None = "fx"
SCHEMA = SchemaPart("fx", Path(__file__).resolve().parent / "sql")
