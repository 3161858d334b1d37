"""Great Expectations gate run on every SourceBatch before it is landed in DuckDB.

Pydantic checks one record at a time; these suites check the batch as a whole (row counts, unique keys,
every price has a spec) and re-check the per-record bounds, so a record built with model_construct() or a
future loosening of the models cannot slip through. great_expectations is imported inside validate_batch:
the import costs seconds and most importers of this module never validate.

validate_batch_many validates many sources' batches in one GE run per suite (see gx_stacked): the same reports
as validate_batch on each, for a fraction of the time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import Any

from pipelines.aws.records import InstancePrice, InstanceSpec, PriceKind, SourceBatch
from schemas.gx_frames import frame, micro_units, record_row
from schemas.gx_runner import ValidationReport, import_gx, run_suite
from schemas.gx_stacked import SourceRows, StackedSuite, scoped, validate_stacked
from schemas.units import BYTES_PER_UNIT

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


def _known_types(spec_rows: list[dict[str, Any]]) -> list[str]:
    return sorted({r["instance_type"] for r in spec_rows if isinstance(r.get("instance_type"), str)})


@dataclass(frozen=True)
class PriceBounds:
    """Prices above these are a parsing or unit mistake, not a real offer (whole micro-dollars, see gx_runner)."""

    max_usd_per_instance_hour: Decimal = Decimal("2000")
    max_usd_per_accelerator_hour: Decimal = Decimal("200")


def _specs_row_count(gxe: Any) -> Any:
    return gxe.ExpectTableRowCountToBeBetween(min_value=1)


def _specs_columns(gxe: Any) -> list[Any]:
    return [
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


def _prices_row_count(gxe: Any, expects_prices: bool) -> Any:
    return gxe.ExpectTableRowCountToBeBetween(min_value=1 if expects_prices else 0)


def _prices_columns(gxe: Any, known_types: list[str], bounds: PriceBounds) -> list[Any]:
    required = ["instance_type", "price_kind", "usd_per_instance_hour", "accelerator_count", "usd_per_accelerator_hour"]
    max_instance, max_accelerator = bounds.max_usd_per_instance_hour, bounds.max_usd_per_accelerator_hour
    return [
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
    _, gxe = import_gx()
    bounds = PriceBounds(max_usd_per_instance_hour, max_usd_per_accelerator_hour)
    spec_rows, price_rows = _spec_rows(batch), _price_rows(batch)
    prices_suite = [_prices_row_count(gxe, expects_prices), *_prices_columns(gxe, _known_types(spec_rows), bounds)]
    specs = frame(spec_rows, SPEC_COLUMNS, numbers=SPEC_NUMBERS)
    prices = frame(price_rows, PRICE_COLUMNS, numbers=PRICE_NUMBERS, money=PRICE_MONEY)
    return [
        run_suite(SPECS_SUITE, [_specs_row_count(gxe), *_specs_columns(gxe)], specs, spec_rows),
        run_suite(PRICES_SUITE, prices_suite, prices, price_rows),
    ]


STACKED_SPECS = StackedSuite(SPECS_SUITE, SPEC_COLUMNS, numbers=SPEC_NUMBERS, scoped=["instance_type"])
# instance_type is scoped for the "has a spec in this batch" check: a type only finds its own source's specs.
STACKED_PRICES = StackedSuite(
    PRICES_SUITE, PRICE_COLUMNS, PRICE_NUMBERS, PRICE_MONEY, scoped=["business_key", "instance_type"]
)


def validate_batch_many(
    batches: Mapping[str, SourceBatch],
    *,
    expects_prices: Mapping[str, bool] | None = None,
    bounds: PriceBounds = PriceBounds(),
) -> dict[str, list[ValidationReport]]:
    """validate_batch on every batch (keyed by source id; expects_prices per source, True if not given), in one
    GE run per suite. Each source's reports are exactly what validate_batch gives it alone."""
    _, gxe = import_gx()
    wants = {source_id: (expects_prices or {}).get(source_id, True) for source_id in batches}
    spec_rows = {source_id: _spec_rows(batch) for source_id, batch in batches.items()}
    known = [scoped(source_id, t) for source_id, rows in spec_rows.items() for t in _known_types(rows)]

    def alone(source_id: str) -> list[ValidationReport]:
        return validate_batch(
            batches[source_id],
            expects_prices=wants[source_id],
            max_usd_per_instance_hour=bounds.max_usd_per_instance_hour,
            max_usd_per_accelerator_hour=bounds.max_usd_per_accelerator_hour,
        )

    specs = validate_stacked(
        STACKED_SPECS,
        [SourceRows(source_id, rows, _specs_row_count(gxe)) for source_id, rows in spec_rows.items()],
        _specs_columns(gxe),
        lambda source_id: alone(source_id)[0],
    )
    prices = validate_stacked(
        STACKED_PRICES,
        [SourceRows(sid, _price_rows(batch), _prices_row_count(gxe, wants[sid])) for sid, batch in batches.items()],
        _prices_columns(gxe, sorted(known), bounds),
        lambda source_id: alone(source_id)[1],
    )
    return {source_id: [specs[source_id], prices[source_id]] for source_id in batches}


__all__ = [
    "PRICES_SUITE",
    "SPECS_SUITE",
    "PriceBounds",
    "validate_batch",
    "validate_batch_many",
]
