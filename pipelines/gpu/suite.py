"""Great Expectations gates for GPU listings (after normalisation to USD) and for ECB FX rates.

validate_listings_many validates many providers' listings in one GE run (see gx_stacked): the same reports as
validate_listings on each, for a fraction of the time.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from enum import Enum
from typing import Any

from pipelines.gpu.records import GpuListing, GpuPriceKind, StockStatus
from schemas.gx_frames import micro_units, record_row
from schemas.gx_runner import ValidationReport
from schemas.gx_stacked import RowSuite, StackedSuite

LISTINGS_SUITE = "gpu_listings"


REGION_NOT_STATED = "<not stated>"


LISTING_COLUMNS = [*GpuListing.model_fields, *GpuListing.model_computed_fields, "business_key"]


# Columns GE compares, handed to it as exact Decimal objects (money in micro-units; see gx_runner).
LISTING_NUMBERS = [
    "gpu_count",
    "usd_per_currency_unit",
    "offer_count",
    "gpu_memory_gib",
    "billing_increment_seconds",
    "idle_timeout_seconds",
]


LISTING_MONEY = ["original_amount", "usd_per_gpu_hour", "usd_per_gpu_hour_4dp"]


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def listing_rows(listings: list[GpuListing]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for listing in listings:
        row = {k: _plain(v) for k, v in record_row(listing).items()}
        region = REGION_NOT_STATED if row.get("region") is None else row["region"]
        row["business_key"] = f"{row.get('listing')}|{row.get('price_kind')}|{region}"
        rows.append(row)
    return rows


def _listing_row_count(gxe: Any) -> Any:
    return gxe.ExpectTableRowCountToBeBetween(min_value=1)


def _listing_columns(gxe: Any, min_usd: Decimal, max_usd: Decimal) -> list[Any]:
    required = [
        "provider",
        "listing",
        "gpu_name",
        "price_kind",
        "original_amount",
        "original_currency",
        "usd_per_gpu_hour",
        "gpu_count",
        "stock_status",
    ]
    return [
        *(gxe.ExpectColumnValuesToNotBeNull(column=column) for column in required),
        # A figure outside this band is a unit or currency mistake, not a bargain.
        gxe.ExpectColumnValuesToBeBetween(
            column="usd_per_gpu_hour", min_value=micro_units(min_usd), max_value=micro_units(max_usd)
        ),
        gxe.ExpectColumnValuesToBeBetween(column="original_amount", min_value=0, strict_min=True),
        gxe.ExpectColumnValuesToBeBetween(column="gpu_count", min_value=1, max_value=1024),
        # Serverless terms (NULL on other kinds, which GE skips): a billed increment over an hour, or an idle
        # timeout over a day, is a misread unit.
        gxe.ExpectColumnValuesToBeBetween(column="billing_increment_seconds", min_value=1, max_value=3600),
        gxe.ExpectColumnValuesToBeBetween(column="idle_timeout_seconds", min_value=0, max_value=86400),
        gxe.ExpectColumnValuesToBeInSet(column="price_kind", value_set=[k.value for k in GpuPriceKind]),
        gxe.ExpectColumnValuesToBeInSet(column="stock_status", value_set=[s.value for s in StockStatus]),
        gxe.ExpectColumnValuesToMatchRegex(column="original_currency", regex=r"^[A-Z]{3}$"),
        gxe.ExpectColumnValuesToBeUnique(column="business_key"),
    ]


STACKED_LISTINGS = StackedSuite(
    LISTINGS_SUITE, LISTING_COLUMNS, LISTING_NUMBERS, LISTING_MONEY, scoped=["business_key"]
)


def listings_suite(
    min_usd_per_gpu_hour: Decimal = Decimal("0.01"), max_usd_per_gpu_hour: Decimal = Decimal("100")
) -> RowSuite[list[GpuListing]]:
    """The listings suite with its price bounds, alone or many providers stacked into one GE run."""
    return RowSuite(
        STACKED_LISTINGS,
        listing_rows,
        _listing_row_count,
        lambda gxe: _listing_columns(gxe, min_usd_per_gpu_hour, max_usd_per_gpu_hour),
    )


def validate_listings(
    listings: list[GpuListing],
    *,
    min_usd_per_gpu_hour: Decimal = Decimal("0.01"),
    max_usd_per_gpu_hour: Decimal = Decimal("100"),
) -> list[ValidationReport]:
    return listings_suite(min_usd_per_gpu_hour, max_usd_per_gpu_hour).validate(listings)


def validate_listings_many(
    listings_by_source: Mapping[str, list[GpuListing]],
    *,
    min_usd_per_gpu_hour: Decimal = Decimal("0.01"),
    max_usd_per_gpu_hour: Decimal = Decimal("100"),
) -> dict[str, list[ValidationReport]]:
    """validate_listings on every source's listings (keyed by source id) in one GE run; each source's reports are
    exactly what validate_listings gives it alone."""
    return listings_suite(min_usd_per_gpu_hour, max_usd_per_gpu_hour).validate_many(listings_by_source)
