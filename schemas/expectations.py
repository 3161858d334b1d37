"""Great Expectations gate run on every SourceBatch before it is landed in DuckDB.

Pydantic checks one record at a time; these suites check the batch as a whole (row counts, unique keys,
every price has a spec) and re-check the per-record bounds, so a record built with model_construct() or a
future loosening of the models cannot slip through. great_expectations is imported inside validate_batch:
the import costs seconds and most importers of this module never validate.
"""

from __future__ import annotations

from decimal import Decimal
from enum import Enum
from typing import Any

from schemas.gx_runner import (
    ExpectationOutcome,
    ValidationReport,
    ephemeral_context,
    frame,
    import_gx,
    micro_units,
    record_row,
    run_suite,
)
from schemas.records import BYTES_PER_UNIT, InstancePrice, InstanceSpec, PriceKind, SourceBatch

SPECS_SUITE = "aws_instance_specs"
PRICES_SUITE = "aws_instance_prices"
REGION_NOT_STATED = "<not stated>"

SPEC_COLUMNS = [*InstanceSpec.model_fields, *InstanceSpec.model_computed_fields]
PRICE_COLUMNS = [*InstancePrice.model_fields, *InstancePrice.model_computed_fields, "business_key"]
# Columns GE compares, handed to it as exact Decimal objects (money in micro-dollars; see gx_runner).
SPEC_NUMBERS = ["accelerator_count", "accelerator_memory_value", "accelerator_memory_gib", "vcpus", "host_memory_gib"]
PRICE_NUMBERS = ["accelerator_count"]
PRICE_MONEY = [
    "usd_per_instance_hour",
    "printed_usd_per_accelerator_hour",
    "usd_per_accelerator_hour",
    "usd_per_accelerator_hour_4dp",
]


def _spec_rows(batch: SourceBatch) -> list[dict[str, Any]]:
    return [record_row(spec) for spec in batch.specs]


def _price_rows(batch: SourceBatch) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for price in batch.prices:
        row = record_row(price)
        kind = row.get("price_kind")
        row["price_kind"] = kind.value if isinstance(kind, Enum) else kind  # plain str for the set check
        region = REGION_NOT_STATED if row.get("region") is None else row["region"]
        row["business_key"] = f"{row.get('instance_type')}|{row['price_kind']}|{region}"
        rows.append(row)
    return rows


def _specs_expectations(gxe: Any) -> list[Any]:
    return [
        gxe.ExpectTableRowCountToBeBetween(min_value=1),
        gxe.ExpectColumnValuesToNotBeNull(column="instance_type"),
        gxe.ExpectColumnValuesToBeUnique(column="instance_type"),
        gxe.ExpectColumnValuesToNotBeNull(column="accelerator"),
        gxe.ExpectColumnValuesToNotBeNull(column="accelerator_count"),
        gxe.ExpectColumnValuesToBeBetween(column="accelerator_count", min_value=1, max_value=1024),
        # Column-map expectations skip nulls, so the optional columns are checked "where present".
        gxe.ExpectColumnValuesToBeBetween(
            column="accelerator_memory_gib", min_value=0, max_value=100_000, strict_min=True
        ),
        gxe.ExpectColumnValuesToBeInSet(column="accelerator_memory_unit", value_set=sorted(BYTES_PER_UNIT)),
        gxe.ExpectColumnValuesToBeBetween(column="vcpus", min_value=1, max_value=4096),
    ]


def _prices_expectations(
    gxe: Any, *, expects_prices: bool, known_types: list[str], max_instance: Decimal, max_accelerator: Decimal
) -> list[Any]:
    required = ["instance_type", "price_kind", "usd_per_instance_hour", "accelerator_count", "usd_per_accelerator_hour"]
    return [
        gxe.ExpectTableRowCountToBeBetween(min_value=1 if expects_prices else 0),
        *(gxe.ExpectColumnValuesToNotBeNull(column=column) for column in required),
        gxe.ExpectColumnValuesToBeBetween(
            column="usd_per_instance_hour", min_value=0, max_value=micro_units(max_instance), strict_min=True
        ),
        gxe.ExpectColumnValuesToBeBetween(
            column="usd_per_accelerator_hour", min_value=0, max_value=micro_units(max_accelerator), strict_min=True
        ),
        gxe.ExpectColumnValuesToBeBetween(column="accelerator_count", min_value=1),
        gxe.ExpectColumnValuesToBeInSet(column="price_kind", value_set=[kind.value for kind in PriceKind]),
        gxe.ExpectColumnValuesToBeUnique(column="business_key"),
        # Every price must have a spec in the same batch; an empty set fails every row, as it should.
        gxe.ExpectColumnValuesToBeInSet(column="instance_type", value_set=known_types),
    ]


def validate_batch(
    batch: SourceBatch,
    *,
    expects_prices: bool = True,
    max_usd_per_instance_hour: Decimal = Decimal("2000"),
    max_usd_per_accelerator_hour: Decimal = Decimal("200"),
) -> list[ValidationReport]:
    """Run the specs and prices suites on one batch; the batch may be landed only if every report succeeds."""
    gx, gxe = import_gx()
    spec_rows, price_rows = _spec_rows(batch), _price_rows(batch)
    known_types = sorted({r["instance_type"] for r in spec_rows if isinstance(r.get("instance_type"), str)})
    prices_suite = _prices_expectations(
        gxe,
        expects_prices=expects_prices,
        known_types=known_types,
        max_instance=max_usd_per_instance_hour,
        max_accelerator=max_usd_per_accelerator_hour,
    )
    specs = frame(spec_rows, SPEC_COLUMNS, numbers=SPEC_NUMBERS)
    prices = frame(price_rows, PRICE_COLUMNS, numbers=PRICE_NUMBERS, money=PRICE_MONEY)
    ctx = ephemeral_context(gx)
    return [
        run_suite(ctx, gx, SPECS_SUITE, _specs_expectations(gxe), specs, spec_rows),
        run_suite(ctx, gx, PRICES_SUITE, prices_suite, prices, price_rows),
    ]


__all__ = ["PRICES_SUITE", "SPECS_SUITE", "ExpectationOutcome", "ValidationReport", "validate_batch"]
