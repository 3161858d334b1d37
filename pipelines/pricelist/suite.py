"""Great Expectations gate run on every PriceListBatch before it is landed in DuckDB.

Pydantic checks one price at a time; this suite checks the batch (one business key per row, exactly one
on-demand row per region and type, every price in the offer file's own region) and re-checks the per-record
bounds, so a record built with model_construct() cannot slip through. Money reaches GE as Decimal micro-units,
as in every other suite (see gx_runner). validate_pricelist_many stacks many batches into one GE run (see
gx_stacked): the same reports as validate_pricelist on each.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import Any

from pipelines.pricelist.records import (
    INSTANCE_TYPE,
    REGION_CODE,
    CountBasis,
    MemoryBasis,
    OfferingClass,
    PriceListBatch,
    PriceListKind,
    PriceListPrice,
    PurchaseOption,
)
from schemas.gx_frames import micro_units, record_row
from schemas.gx_runner import ValidationReport
from schemas.gx_stacked import RowSuite, StackedSuite

PRICELIST_SUITE = "aws_pricelist_prices"
# The record's pattern without capture groups (pandas warns about groups in str.contains).
GE_REGION_CODE = REGION_CODE.replace("(", "(?:")
PRICELIST_COLUMNS = [
    *PriceListPrice.model_fields,
    *PriceListPrice.model_computed_fields,
    "business_key",
    "on_demand_key",
    "in_file_region",
]
# Columns GE compares, handed to it as exact Decimal objects (money in micro-dollars; see gx_runner).
PRICELIST_NUMBERS = ["lease_years", "accelerator_count", "accelerator_memory_value", "accelerator_memory_gib"]
PRICELIST_MONEY = [
    "hourly_usd",
    "upfront_usd",
    "effective_usd_per_instance_hour",
    "usd_per_accelerator_hour",
    "usd_per_accelerator_hour_4dp",
]


@dataclass(frozen=True)
class PriceListBounds:
    """Figures above these are a parsing or unit mistake, not a real offer (whole USD; see gx_runner)."""

    max_usd_per_instance_hour: Decimal = Decimal("2000")
    max_usd_per_accelerator_hour: Decimal = Decimal("200")
    max_upfront_usd: Decimal = Decimal("20000000")  # 3 years of a 48xlarge paid up front is a few million


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def business_key(row: Mapping[str, Any]) -> str:
    """region|type|kind|years|option|class: what the history table versions a price by."""
    parts = ("region_code", "instance_type", "price_kind", "lease_years", "purchase_option", "offering_class")
    return "|".join("" if row.get(p) is None else str(row[p]) for p in parts)


def pricelist_rows(batch: PriceListBatch) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for price in batch.prices:
        row = {k: _plain(v) for k, v in record_row(price).items()}
        row["business_key"] = business_key(row)
        on_demand = row.get("price_kind") == PriceListKind.ON_DEMAND.value
        row["on_demand_key"] = f"{row.get('region_code')}|{row.get('instance_type')}" if on_demand else None
        # A regional offer file prices its own region only; the spot feed (no region) prices every region.
        row["in_file_region"] = batch.region_code is None or row.get("region_code") == batch.region_code
        rows.append(row)
    return rows


def _row_count(gxe: Any) -> Any:
    # A region with no accelerator instances is a real answer: its batch is empty and closes what was open.
    return gxe.ExpectTableRowCountToBeBetween(min_value=0)


def _in_set(gxe: Any, column: str, values: list[Any]) -> Any:
    return gxe.ExpectColumnValuesToBeInSet(column=column, value_set=values)


def _columns(gxe: Any, bounds: PriceListBounds) -> list[Any]:
    required = [
        "region_code",
        "instance_type",
        "price_kind",
        "hourly_usd",
        "effective_usd_per_instance_hour",
        "accelerator_count",
        "accelerator_count_basis",
        "usd_per_accelerator_hour",
    ]
    between = gxe.ExpectColumnValuesToBeBetween
    return [
        *(gxe.ExpectColumnValuesToNotBeNull(column=column) for column in required),
        between(column="hourly_usd", min_value=0, max_value=micro_units(bounds.max_usd_per_instance_hour)),
        between(column="upfront_usd", min_value=0, max_value=micro_units(bounds.max_upfront_usd)),
        # A price of 0 means "not offered": never a row.
        between(
            column="effective_usd_per_instance_hour",
            min_value=0,
            max_value=micro_units(bounds.max_usd_per_instance_hour),
            strict_min=True,
        ),
        between(
            column="usd_per_accelerator_hour",
            min_value=0,
            max_value=micro_units(bounds.max_usd_per_accelerator_hour),
            strict_min=True,
        ),
        between(column="accelerator_count", min_value=1, max_value=1024),
        _in_set(gxe, "lease_years", [1, 3]),
        _in_set(gxe, "price_kind", [k.value for k in PriceListKind]),
        _in_set(gxe, "purchase_option", [o.value for o in PurchaseOption]),
        _in_set(gxe, "offering_class", [c.value for c in OfferingClass]),
        _in_set(gxe, "accelerator_count_basis", [b.value for b in CountBasis]),
        _in_set(gxe, "accelerator_memory_basis", [b.value for b in MemoryBasis]),
        gxe.ExpectColumnValuesToMatchRegex(column="region_code", regex=GE_REGION_CODE),
        gxe.ExpectColumnValuesToMatchRegex(column="instance_type", regex=INSTANCE_TYPE),
        _in_set(gxe, "in_file_region", [True]),
        gxe.ExpectColumnValuesToBeUnique(column="business_key"),
        # Exactly one on-demand row per (region, type) after the filters; other kinds leave it null (skipped).
        gxe.ExpectColumnValuesToBeUnique(column="on_demand_key"),
    ]


# The keys are unique within one source's batch only: scoped, so two regions' batches never collide.
STACKED_PRICELIST = StackedSuite(
    PRICELIST_SUITE,
    PRICELIST_COLUMNS,
    PRICELIST_NUMBERS,
    PRICELIST_MONEY,
    scoped=["business_key", "on_demand_key"],
)


def pricelist_suite(bounds: PriceListBounds = PriceListBounds()) -> RowSuite[PriceListBatch]:
    """The price-list suite with its bounds, on one batch alone or many regions stacked into one GE run."""
    return RowSuite(STACKED_PRICELIST, pricelist_rows, _row_count, lambda gxe: _columns(gxe, bounds))


def validate_pricelist(batch: PriceListBatch, *, bounds: PriceListBounds = PriceListBounds()) -> list[ValidationReport]:
    """The price-list suite on one batch; the batch may be landed only if every report succeeds."""
    return pricelist_suite(bounds).validate(batch)


def validate_pricelist_many(
    batches: Mapping[str, PriceListBatch], *, bounds: PriceListBounds = PriceListBounds()
) -> dict[str, list[ValidationReport]]:
    """validate_pricelist on every batch (keyed by source id) in one GE run; each source's reports are exactly
    what validate_pricelist gives it alone."""
    return pricelist_suite(bounds).validate_many(batches)
