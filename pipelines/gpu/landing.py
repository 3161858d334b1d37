"""The GPU listings table (versioned) and the FX rates table (facts, corrections versioned), reading rates back,
and bringing listings landed before the stale-rate flag existed up to date."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import duckdb
import pyarrow as pa

from pipelines.fx.records import DEFAULT_MAX_FX_RATE_AGE_DAYS
from pipelines.gpu.records import GpuListing
from warehouse.binding import execute
from warehouse.landing import Snapshot
from warehouse.rebuild import rebuild_if_check_refuses
from warehouse.sql_files import SchemaPart
from warehouse.versioning import VersionedTable, rehash


class ListingsBatch(Protocol):
    """What landing needs of a normalised GPU batch (pipelines.gpu.normalise.NormalisedBatch): its listings.
    Named by shape, because the warehouse imports nothing of the pipeline, not even for types."""

    @property
    def listings(self) -> Sequence[GpuListing]: ...

    @property
    def regions_read(self) -> Sequence[str] | None: ...


# A price as printed: Google prints nine decimals ($93.400712807 / 1 hour), more than MONEY's six.
PRINTED_MONEY = pa.decimal128(24, 12)

GPU_LISTINGS = VersionedTable(
    name="gpu_listing_history",
    key_columns=("listing", "price_kind", "region"),
    attribute_fields=(
        pa.field("provider", pa.string()),
        pa.field("listing", pa.string()),
        pa.field("gpu_name", pa.string()),
        pa.field("gpu_model", pa.string()),
        pa.field("gpu_variant", pa.string()),
        pa.field("gpu_memory_gib", pa.decimal128(18, 6)),
        pa.field("gpu_count", pa.int32()),
        pa.field("price_kind", pa.string()),
        pa.field("original_amount", PRINTED_MONEY),
        pa.field("original_currency", pa.string()),
        pa.field("original_unit", pa.string()),
        pa.field("price_per", pa.string()),
        pa.field("period", pa.string()),
        pa.field("usd_per_currency_unit", pa.decimal128(20, 10)),
        pa.field("fx_rate_date", pa.date32()),
        pa.field("fx_rate_stale", pa.bool_()),
        pa.field("usd_per_gpu_hour", pa.decimal128(38, 18)),
        pa.field("usd_per_gpu_hour_4dp", pa.decimal128(18, 4)),
        pa.field("stock_status", pa.string()),
        pa.field("region", pa.string()),
        pa.field("offer_count", pa.int32()),
        pa.field("gpu_memory_printed", pa.decimal128(18, 6)),
        pa.field("gpu_memory_unit", pa.string()),
        pa.field("gpu_memory_from_catalog", pa.bool_()),
        pa.field("usd_per_gpu_second", pa.decimal128(38, 18)),
        pa.field("billing_increment_seconds", pa.int32()),
        pa.field("idle_timeout_seconds", pa.int32()),
        pa.field("cold_start_billed", pa.bool_()),
        pa.field("billing_terms", pa.string()),
    ),
    # Where the terms are stated: the page's own URL for most, which an offline or test refresh serves from a port
    # of the moment. Kept with each version, never a change by itself.
    carried_fields=(pa.field("billing_terms_url", pa.string()),),
)


NARROW_PRINTED_AMOUNT = """
SELECT count(*) FROM duckdb_columns()
WHERE database_name = current_database() AND table_name = 'gpu_listing_history' AND column_name = 'original_amount'
  AND data_type <> 'DECIMAL(24,12)'
"""


# Listings landed before fx_rate_stale existed: judged against the default limit at their own fetch date.
BACKFILL_FX_RATE_STALE = """
UPDATE gpu_listing_history
SET fx_rate_stale = date_diff('day', fx_rate_date, CAST(timezone('UTC', fetched_at) AS DATE)) > $max_age_days
WHERE fx_rate_stale IS NULL AND fx_rate_date IS NOT NULL
"""


# Listings landed before memory kept its printed unit stored a GB figure (the catalog's and the providers') as
# if it were GiB: keep it as printed in GB and convert it (1 GiB = 1.073741824 GB). The one exception: Vast.ai's
# own figure (unknown models only; known ones took the catalog's) is MiB / 1024, GiB already. Whether a figure
# came from the catalog was not recorded, so the flag stays NULL for these rows.
UPGRADE_GPU_MEMORY = """
UPDATE gpu_listing_history
SET gpu_memory_printed = gpu_memory_gib,
    gpu_memory_unit = CASE WHEN gpu_model IS NULL AND parser_version LIKE 'gpu_vastai/%' THEN 'GiB' ELSE 'GB' END,
    gpu_memory_gib = CASE WHEN gpu_model IS NULL AND parser_version LIKE 'gpu_vastai/%' THEN gpu_memory_gib
        ELSE CAST(decimal_quotient(gpu_memory_gib, CAST(1.073741824 AS DECIMAL(10, 9))) AS DECIMAL(18, 6)) END
WHERE gpu_memory_unit IS NULL AND gpu_memory_gib IS NOT NULL
"""


def gpu_snapshots(batch: ListingsBatch) -> list[Snapshot]:
    rows = []
    for listing in batch.listings:
        row = listing.model_dump(mode="python")
        row["original_unit"] = listing.original_unit
        rows.append({k: (v.value if hasattr(v, "value") else v) for k, v in row.items()})
    if batch.regions_read is None:
        return [Snapshot(GPU_LISTINGS, rows)]
    return [Snapshot(GPU_LISTINGS, rows, within={"region": list(batch.regions_read)})]


def upgrade_gpu_history(con: duckdb.DuckDBPyConnection, part: SchemaPart) -> None:
    """After the schema files ran: admit the serverless kinds and the kinds with a term, fill fx_rate_stale on
    older rows, then rehash them, so an upgraded file's next refresh finds its unchanged listings unchanged."""
    # A file made before the serverless kinds, or before the kinds with a term (and per-term prices): its CHECKs
    # refuse them. One rebuild takes every CHECK of the tables file as it is now.
    rebuild_if_check_refuses(con, "gpu_listing_history", "price_kind", "dws_calendar", part)
    # A lake keeps no CHECKs, so it is never rebuilt: its prices as printed are widened in place (no data file is
    # rewritten; a DuckDB file's CHECK forbids this, and its rebuild above took the tables file's type).
    (narrow,) = con.execute(NARROW_PRINTED_AMOUNT).fetchone() or (0,)
    if narrow:
        con.execute("ALTER TABLE gpu_listing_history ALTER original_amount SET TYPE DECIMAL(24, 12)")
    execute(con, BACKFILL_FX_RATE_STALE, {"max_age_days": DEFAULT_MAX_FX_RATE_AGE_DAYS})
    con.execute(UPGRADE_GPU_MEMORY)
    rehash(con, GPU_LISTINGS)


# The source's open rows, for the drift rules (pipelines.kind.History).
CURRENT_PRICES = """SELECT listing, price_kind, region, usd_per_gpu_hour FROM gpu_listing_history
WHERE source_id = $source_id AND valid_to IS NULL"""
CURRENT_ROWS = "SELECT count(*) FROM gpu_listing_history WHERE source_id = $source_id AND valid_to IS NULL"

CHANGES = """
SELECT 'opened' AS change, listing, price_kind, coalesce(region, '(not stated)') AS region,
       usd_per_gpu_hour_4dp, stock_status
FROM gpu_listing_history
WHERE source_id = $source_id AND fetch_id = $fetch_id
UNION ALL
SELECT 'closed', listing, price_kind, coalesce(region, '(not stated)'), usd_per_gpu_hour_4dp, stock_status
FROM gpu_listing_history
WHERE source_id = $source_id AND valid_to = $observed_at
ORDER BY listing, price_kind, region, change DESC
"""
