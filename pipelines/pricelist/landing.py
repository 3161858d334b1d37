"""AWS price-list prices: the type-2 history table (one region per snapshot) and the offer files landed.

A regional offer file lands as one snapshot scoped to its (source, region): landing us-east-1 opens, keeps or
closes us-east-1's rows only. The offer's version stamp and publication date travel with each new version but
are never compared, so a new monthly file with the same prices adds no price rows; the offer itself is
recorded in aws_pricelist_offers, which the publication-date gate reads.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from enum import Enum
from typing import Any

import duckdb
import pyarrow as pa

from pipelines.pricelist.records import PriceListBatch
from warehouse.binding import execute
from warehouse.landing import Snapshot
from warehouse.rebuild import rebuild_if_check_refuses
from warehouse.sql_files import SchemaPart
from warehouse.versioning import FactTable, VersionedTable, rehash

ALL_REGIONS = "(all regions)"  # aws_pricelist_offers.region_code of a feed that covers every region (spot)
PRINTED = pa.decimal128(24, 10)  # the price list prints 10 decimals
FULL = pa.decimal128(38, 18)
GIB = pa.decimal128(18, 6)
SHARE = pa.decimal128(7, 6)

PRICELIST_PRICES = VersionedTable(
    name="aws_pricelist_price_history",
    key_columns=("region_code", "instance_type", "price_kind", "lease_years", "purchase_option", "offering_class"),
    attribute_fields=(
        pa.field("region_code", pa.string()),
        pa.field("location", pa.string()),
        pa.field("instance_type", pa.string()),
        pa.field("family", pa.string()),
        pa.field("price_kind", pa.string()),
        pa.field("lease_years", pa.int32()),
        pa.field("purchase_option", pa.string()),
        pa.field("offering_class", pa.string()),
        pa.field("hourly_usd", PRINTED),
        pa.field("upfront_usd", PRINTED),
        pa.field("effective_usd_per_instance_hour", FULL),
        pa.field("accelerator", pa.string()),
        pa.field("accelerator_count", pa.int32()),
        pa.field("accelerator_share", SHARE),
        pa.field("accelerator_count_basis", pa.string()),
        pa.field("price_list_gpu", pa.string()),
        pa.field("usd_per_accelerator_hour", FULL),
        pa.field("usd_per_accelerator_hour_4dp", pa.decimal128(18, 4)),
        pa.field("accelerator_memory_printed", pa.string()),
        pa.field("accelerator_memory_value", GIB),
        pa.field("accelerator_memory_unit", pa.string()),
        pa.field("accelerator_memory_gib", GIB),
        pa.field("accelerator_memory_basis", pa.string()),
        pa.field("indicative", pa.bool_()),
    ),
    carried_fields=(
        pa.field("sku", pa.string()),
        pa.field("rate_code", pa.string()),
        pa.field("offer_version", pa.string()),
        pa.field("publication_date", pa.timestamp("us", tz="UTC")),
    ),
    scope_columns=("region_code",),
)

# The same table, unscoped: a feed that prices every region at once (spot) replaces all of its source's rows.
PRICELIST_ALL_REGIONS = dataclasses.replace(PRICELIST_PRICES, scope_columns=())

# The types as the data describes them: each accelerator type as a regional offer file describes it.
PRICELIST_TYPES = VersionedTable(
    name="aws_pricelist_type_history",
    key_columns=("region_code", "instance_type"),
    attribute_fields=(
        pa.field("region_code", pa.string()),
        pa.field("instance_type", pa.string()),
        pa.field("family", pa.string()),
        pa.field("price_list_gpu", pa.string()),
        pa.field("price_list_gpu_memory", pa.string()),
        pa.field("accelerator", pa.string()),
        pa.field("accelerator_count", pa.int32()),
        pa.field("accelerator_share", SHARE),
        pa.field("accelerator_count_basis", pa.string()),
        pa.field("accelerator_memory_value", GIB),
        pa.field("accelerator_memory_unit", pa.string()),
        pa.field("accelerator_memory_gib", GIB),
        pa.field("accelerator_memory_basis", pa.string()),
        pa.field("curated_why", pa.string()),
    ),
    carried_fields=(
        pa.field("offer_version", pa.string()),
        pa.field("publication_date", pa.timestamp("us", tz="UTC")),
    ),
    scope_columns=("region_code",),
)

# The newest description of each type open at $as_of (NULL: now), over every region: what a spot quote is priced
# with. A reparse asks as of its fetch, so it sees what that refresh saw.
LATEST_TYPE_ATTRIBUTES = """
SELECT instance_type, price_list_gpu, price_list_gpu_memory FROM aws_pricelist_type_history
WHERE ($as_of IS NULL AND valid_to IS NULL)
   OR ($as_of IS NOT NULL AND valid_from <= $as_of AND (valid_to IS NULL OR valid_to > $as_of))
QUALIFY row_number() OVER (PARTITION BY instance_type ORDER BY publication_date DESC NULLS LAST, region_code) = 1
"""

PRICELIST_OFFERS = FactTable(
    name="aws_pricelist_offers",
    key_columns=("source_id", "region_code"),
    fields=(
        pa.field("source_id", pa.string()),
        pa.field("region_code", pa.string()),
        pa.field("offer_version", pa.string()),
        pa.field("publication_date", pa.timestamp("us", tz="UTC")),
        pa.field("price_rows", pa.int32()),
    ),
)

# The offer currently landed for a source and region: what a new file's publication date is compared with.
LANDED_PUBLICATION = """
SELECT publication_date, offer_version FROM aws_pricelist_offers
WHERE source_id = $source_id AND region_code = $region_code AND valid_to IS NULL
"""


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def offer_region(batch: PriceListBatch) -> str:
    return batch.region_code or ALL_REGIONS


def pricelist_rows(batch: PriceListBatch) -> list[dict[str, Any]]:
    """The batch's prices as history rows (enums as their printed values, derived figures included)."""
    return [{k: _plain(v) for k, v in price.model_dump(mode="python").items()} for price in batch.prices]


def pricelist_snapshots(batch: PriceListBatch) -> list[Snapshot]:
    """One regional snapshot of prices (scope: the batch's region) and the offer it came from.

    A price outside the batch's region would escape its snapshot's scope (and never be closed): refused.
    """
    strays = sorted({p.region_code for p in batch.prices} - {batch.region_code}) if batch.region_code else []
    if strays:
        raise ValueError(f"[{batch.source_id}] offer file for {batch.region_code} carries prices for {strays}")
    offer = {
        "source_id": batch.source_id,
        "region_code": offer_region(batch),
        "offer_version": batch.offer_version,
        "publication_date": batch.publication_date,
        "price_rows": len(batch.prices),
    }
    rows = pricelist_rows(batch)
    # Rows refused one by one (spot, SageMaker): their last landed versions stay open.
    kept = [{k: _plain(v) for k, v in row.model_dump().items() if k != "reason"} for row in batch.refused]
    kept = [{"lease_years": None, "purchase_option": None, "offering_class": None, **key} for key in kept]
    if batch.region_code is None:
        return [Snapshot(PRICELIST_ALL_REGIONS, rows, kept=kept), Snapshot(PRICELIST_OFFERS, [offer])]
    scope = {"region_code": batch.region_code}
    return [
        Snapshot(PRICELIST_PRICES, rows, scope=scope, kept=kept),
        Snapshot(PRICELIST_TYPES, type_rows(batch), scope=scope),
        Snapshot(PRICELIST_OFFERS, [offer]),
    ]


def type_rows(batch: PriceListBatch) -> list[dict[str, Any]]:
    """The batch's type descriptions as history rows, with the offer they came from."""
    offer = {"offer_version": batch.offer_version, "publication_date": batch.publication_date}
    return [{**{k: _plain(v) for k, v in t.model_dump(mode="python").items()}, **offer} for t in batch.types]


def latest_type_attributes(
    con: duckdb.DuckDBPyConnection, as_of: datetime | None = None
) -> dict[str, tuple[str | None, str | None]]:
    """Instance type -> (GPU, GPU Memory) as the newest offer file landed (by `as_of`) prints them."""
    rows = execute(con, LATEST_TYPE_ATTRIBUTES, {"as_of": as_of}).fetchall()
    return {row[0]: (row[1], row[2]) for row in rows}


def landed_publication(
    con: duckdb.DuckDBPyConnection, source_id: str, region_code: str | None
) -> tuple[datetime | None, str | None] | None:
    """(publication date, offer version) of the offer landed last for this source and region; None if none."""
    rows = execute(con, LANDED_PUBLICATION, {"source_id": source_id, "region_code": region_code or ALL_REGIONS})
    found = rows.fetchall()
    return (found[0][0], found[0][1]) if found else None


def publication_landed(
    source_id: str, region_code: str | None, con: duckdb.DuckDBPyConnection, _as_of: datetime | None = None
) -> datetime | None:
    """Publication date of the offer file landed last for this source and region (None: none landed), as the
    publication-date gate reads it (a kind's read of what is landed)."""
    landed = landed_publication(con, source_id, region_code)
    return landed[0] if landed else None


def upgrade_pricelist_history(con: duckdb.DuckDBPyConnection, part: SchemaPart) -> None:
    """A file made before the Savings Plans or SageMaker kinds gets a table whose CHECK admits them (the newest kind
    stands for every older one); rows landed before accelerator_share existed get hashes in the current definition
    (share NULL)."""
    rebuild_if_check_refuses(con, PRICELIST_PRICES.name, "price_kind", "sagemaker_training", part)
    rehash(con, PRICELIST_PRICES)


# One region's open rows (all of the source's for a feed of every region), for the drift rules; the kind spelled
# with its terms as pipelines.pricelist.kind.pricelist_kind_label spells it.
CURRENT_PRICES = """SELECT instance_type,
       CASE WHEN lease_years IS NULL OR purchase_option IS NULL THEN price_kind
            ELSE concat_ws(' ', replace(price_kind, '_', ' '), lease_years || 'y', purchase_option, offering_class) END,
       region_code, effective_usd_per_instance_hour
FROM aws_pricelist_price_history
WHERE source_id = $source_id AND valid_to IS NULL AND ($region_code IS NULL OR region_code = $region_code)"""
CURRENT_ROWS = """SELECT count(*) FROM aws_pricelist_price_history
WHERE source_id = $source_id AND valid_to IS NULL AND ($region_code IS NULL OR region_code = $region_code)"""

CHANGES = """
SELECT 'opened' AS change, instance_type, price_kind, lease_years, purchase_option, offering_class, region_code,
       effective_usd_per_instance_hour
FROM aws_pricelist_price_history
WHERE source_id = $source_id AND fetch_id = $fetch_id
UNION ALL
SELECT 'closed', instance_type, price_kind, lease_years, purchase_option, offering_class, region_code,
       effective_usd_per_instance_hour
FROM aws_pricelist_price_history
WHERE source_id = $source_id AND valid_to = $observed_at
ORDER BY region_code, instance_type, price_kind, lease_years, purchase_option, offering_class, change DESC
"""
