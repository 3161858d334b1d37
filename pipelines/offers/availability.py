"""Where an accelerator can be had: the rows of `accelerator_availability` for a model named as `find` names it,
listed now (or ever, asked), by price kind family, cheapest first, as an Arrow table with money as DECIMAL."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from pipelines.offers.names import known_accelerator
from pipelines.offers.search import ACCELERATOR_IS_WANTED, WANTED_MODELS, read_snapshot

AVAILABILITY = (
    WANTED_MODELS
    + f"""
SELECT price_kind_family, provider, region, region_code, accelerator_model, accelerator_variant, listed_now,
       offers_now, cheapest_usd_per_accelerator_hour, cheapest_offering, cheapest_price_kind,
       first_seen_at, last_seen_at, fetched_at, source_id, source_url, content_sha256, parser_version
FROM accelerator_availability AS o
WHERE {ACCELERATOR_IS_WANTED} AND (listed_now OR $include_gone)
ORDER BY price_kind_family, listed_now DESC, cheapest_usd_per_accelerator_hour NULLS LAST, provider,
         region NULLS LAST, accelerator_variant NULLS FIRST, last_seen_at DESC
"""
)


def where_available(con: duckdb.DuckDBPyConnection, accelerator: str, *, include_gone: bool = False) -> pa.Table:
    """The providers and regions listing `accelerator` now (with `include_gone`, also those no longer listing it);
    an unknown name is refused with the nearest names (UnknownName)."""
    params = {"accelerator": known_accelerator(con, accelerator), "include_gone": include_gone}
    return con.sql(AVAILABILITY, params=params).to_arrow_table()


def where_in_snapshot(
    db: Path | str, accelerator: str, *, include_gone: bool = False, wait_s: float = 30.0
) -> pa.Table:
    """`where_available` on the warehouse's published snapshot, opened read-only."""
    return read_snapshot(db, lambda con: where_available(con, accelerator, include_gone=include_gone), wait_s=wait_s)
