"""The AWS page tables (kind `aws`): instance specifications and prices, versioned per source, and the upgrade of
rows landed before their current columns."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from pipelines.aws.records import SourceBatch
from schemas.regions import location_names, region_code_for
from warehouse.landing import MONEY, Snapshot
from warehouse.queries import one_row
from warehouse.sql_files import SchemaPart
from warehouse.versioning import (
    VersionedTable,
    rehash,
)

SPECS = VersionedTable(
    name="aws_instance_spec_history",
    key_columns=("instance_type",),
    attribute_fields=(
        pa.field("instance_type", pa.string()),
        pa.field("family", pa.string()),
        pa.field("accelerator", pa.string()),
        pa.field("accelerator_count", pa.int32()),
        pa.field("accelerator_memory_value", pa.decimal128(18, 6)),
        pa.field("accelerator_memory_unit", pa.string()),
        pa.field("accelerator_memory_gib", pa.decimal128(18, 6)),
        pa.field("accelerator_memory_derived", pa.bool_()),
        pa.field("accelerator_memory_basis", pa.string()),
        pa.field("vcpus", pa.int32()),
        pa.field("host_memory_gib", pa.decimal128(18, 6)),
    ),
)


PRICES = VersionedTable(
    name="aws_instance_price_history",
    key_columns=("instance_type", "price_kind", "region"),
    attribute_fields=(
        pa.field("instance_type", pa.string()),
        pa.field("price_kind", pa.string()),
        pa.field("region", pa.string()),
        pa.field("region_stated", pa.bool_()),
        pa.field("usd_per_instance_hour", MONEY),
        pa.field("accelerator_count", pa.int32()),
        pa.field("usd_per_accelerator_hour", pa.decimal128(38, 18)),
        pa.field("usd_per_accelerator_hour_4dp", pa.decimal128(18, 4)),
        pa.field("printed_usd_per_accelerator_hour", MONEY),
        pa.field("region_code", pa.string()),  # from the printed region by schemas.regions; NULL if none
    ),
)


def upgrade_aws_history(con: duckdb.DuckDBPyConnection, _part: SchemaPart) -> None:
    """Bring stored attribute hashes to the current definition (run whenever the schema files are applied): files
    from the release that hashed in Python get DuckDB's hash once; on later upgrades nothing changes."""
    backfill_region_codes(con)
    rehash(con, SPECS)
    rehash(con, PRICES)


def backfill_region_codes(con: duckdb.DuckDBPyConnection) -> int:
    """Rows landed before region_code existed (or before the reference knew their location) get the code of
    their printed region; returns how many changed. Run before rehash: region_code is an attribute."""
    names = location_names()
    con.register("_region_names", pa.table({"location": list(names), "region_code": list(names.values())}))
    (changed,) = one_row(
        con,
        """UPDATE aws_instance_price_history AS p SET region_code = n.region_code
           FROM _region_names AS n
           WHERE p.region = n.location AND p.region_code IS DISTINCT FROM n.region_code""",
    )
    con.unregister("_region_names")
    return int(changed)


def aws_snapshots(batch: SourceBatch) -> list[Snapshot]:
    prices = [{**r.model_dump(mode="python"), "region_code": region_code_for(r.region)} for r in batch.prices]
    return [Snapshot(SPECS, [r.model_dump(mode="python") for r in batch.specs]), Snapshot(PRICES, prices)]


# The source's open rows, for the drift rules (pipelines.kind.History).
CURRENT_PRICES = """SELECT instance_type, price_kind, region, usd_per_instance_hour FROM aws_instance_price_history
WHERE source_id = $source_id AND valid_to IS NULL"""
CURRENT_ROWS = """
SELECT (SELECT count(*) FROM aws_instance_spec_history WHERE source_id = $source_id AND valid_to IS NULL)
     + (SELECT count(*) FROM aws_instance_price_history WHERE source_id = $source_id AND valid_to IS NULL)"""

CHANGES = """
SELECT 'opened' AS change, instance_type, price_kind, coalesce(region, '(not stated)') AS region,
       usd_per_instance_hour
FROM aws_instance_price_history
WHERE source_id = $source_id AND fetch_id = $fetch_id
UNION ALL
SELECT 'closed', instance_type, price_kind, coalesce(region, '(not stated)'), usd_per_instance_hour
FROM aws_instance_price_history
WHERE source_id = $source_id AND valid_to = $observed_at
ORDER BY instance_type, price_kind, region, change DESC
"""
