"""PriceListBatch factory for the warehouse-side tests: prices built by field, batches per region, landing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import duckdb

from pipelines.pricelist.landing import pricelist_snapshots
from pipelines.pricelist.records import (
    CountBasis,
    MemoryBasis,
    OfferingClass,
    PriceListBatch,
    PriceListKind,
    PriceListPrice,
    PurchaseOption,
)
from schemas.regions import aws_regions
from warehouse.landing import FetchRecord, LandResult, land_batch

SOURCE = "aws_pricelist"
PARSER = "aws_pricelist_region/test"
T0 = datetime(2026, 9, 28, 6, 0, tzinfo=UTC)
PUBLISHED = datetime(2026, 9, 1, tzinfo=UTC)
VERSION = "20260901000000"
LOCATIONS = {r.region_code: r.location for r in aws_regions()}
# CuratedFigures figures for the types the tests use: (accelerator, count, memory GB).
CATALOG = {
    "trn1.2xlarge": ("Trainium", 1, "32"),
    "trn1.32xlarge": ("Trainium", 16, "512"),
    "p5.48xlarge": ("H100", 8, "640"),
    "g6e.xlarge": ("L40S", 1, "48"),
}


def price(
    instance_type: str = "trn1.32xlarge",
    usd: str = "21.50",
    region: str = "us-east-1",
    kind: PriceListKind = PriceListKind.ON_DEMAND,
    **overrides: Any,
) -> PriceListPrice:
    accelerator, count, memory = CATALOG[instance_type]
    fields: dict[str, Any] = {
        "region_code": region,
        "location": LOCATIONS.get(region),
        "instance_type": instance_type,
        "price_kind": kind,
        "hourly_usd": Decimal(usd),
        "accelerator": accelerator,
        "accelerator_count": count,
        "accelerator_count_basis": CountBasis.CATALOG,
        "price_list_gpu": str(count),
        "accelerator_memory_value": Decimal(memory),
        "accelerator_memory_unit": "GB",
        "accelerator_memory_basis": MemoryBasis.CATALOG,
        "sku": f"SKU{instance_type}{region}".replace(".", "").replace("-", "").upper()[:16],
        "offer_version": VERSION,
        "publication_date": PUBLISHED,
    }
    return PriceListPrice(**(fields | overrides))


def reserved(
    instance_type: str = "trn1.32xlarge",
    hourly: str = "8.00",
    upfront: str | None = "70000",
    region: str = "us-east-1",
    years: int = 1,
    option: PurchaseOption = PurchaseOption.PARTIAL_UPFRONT,
    offering: OfferingClass = OfferingClass.STANDARD,
) -> PriceListPrice:
    return price(
        instance_type,
        hourly,
        region,
        PriceListKind.RESERVED,
        lease_years=years,
        purchase_option=option,
        offering_class=offering,
        upfront_usd=None if upfront is None else Decimal(upfront),
    )


def batch(
    prices: list[PriceListPrice],
    region: str | None = "us-east-1",
    *,
    source_id: str = SOURCE,
    published: datetime = PUBLISHED,
    version: str = VERSION,
) -> PriceListBatch:
    return PriceListBatch(
        source_id=source_id,
        parser_version=PARSER,
        region_code=region,
        offer_version=version,
        publication_date=published,
        prices=prices,
    )


def fetch(day: int, region: str | None = "us-east-1", source_id: str = SOURCE) -> FetchRecord:
    url = f"http://127.0.0.1/offers/v1.0/aws/AmazonEC2/{VERSION}/{region or 'spot'}/index.csv"
    return FetchRecord(source_id=source_id, url=url, fetched_at=T0 + timedelta(days=day), sha256=f"{day:064x}")


def land(con: duckdb.DuckDBPyConnection, b: PriceListBatch, day: int) -> LandResult:
    return land_batch(con, fetch(day, b.region_code, b.source_id), PARSER, pricelist_snapshots(b))


def us_east_1() -> list[PriceListPrice]:
    """A small region: on-demand for three types (one NVIDIA), and two reserved offers of trn1.32xlarge."""
    return [
        price("trn1.32xlarge", "21.50"),
        price("trn1.2xlarge", "1.34"),
        price("p5.48xlarge", "55.04"),
        reserved("trn1.32xlarge", "8.00", "70000"),
        reserved("trn1.32xlarge", "0", "180000", years=3, option=PurchaseOption.ALL_UPFRONT),
    ]
