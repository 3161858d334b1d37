"""Great Expectations gate run on every SourceBatch before it is landed in DuckDB.

Pydantic checks one record at a time; these suites check the batch as a whole (row counts, unique keys,
every price has a spec) and re-check the per-record bounds, so a record built with model_construct() or a
future loosening of the models cannot slip through. great_expectations is imported inside validate_batch:
the import costs seconds and most importers of this module never validate.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import Any

import pandas as pd

from schemas.records import BYTES_PER_UNIT, InstancePrice, InstanceSpec, PriceKind, SourceBatch

SPECS_SUITE = "aws_instance_specs"
PRICES_SUITE = "aws_instance_prices"
REGION_NOT_STATED = "<not stated>"
_SHOWN_VALUES = 5  # offending values quoted by describe()

SPEC_COLUMNS = [*InstanceSpec.model_fields, *InstanceSpec.model_computed_fields]
PRICE_COLUMNS = [*InstancePrice.model_fields, *InstancePrice.model_computed_fields, "business_key"]
# Decimal (and int) columns handed to GE as float64: its numeric comparisons need a numeric dtype.
SPEC_NUMERIC = ["accelerator_count", "accelerator_memory_value", "accelerator_memory_gib", "vcpus",
                "host_memory_gib"]
PRICE_NUMERIC = ["usd_per_instance_hour", "accelerator_count", "printed_usd_per_accelerator_hour",
                 "usd_per_accelerator_hour", "usd_per_accelerator_hour_4dp"]


@dataclass(frozen=True)
class ExpectationOutcome:
    expectation: str
    column: str | None
    success: bool
    unexpected_count: int | None
    partial_unexpected: list
    detail: str | None = None  # table-level observed value, or the error if the expectation raised

    def describe(self) -> str:
        name = f"{self.expectation}({self.column})" if self.column else self.expectation
        if self.unexpected_count:
            return f"{name}: {self.unexpected_count} unexpected, e.g. {self.partial_unexpected[:_SHOWN_VALUES]!r}"
        if self.detail:
            return f"{name}: {self.detail}"
        return f"{name}: {'ok' if self.success else 'failed'}"


@dataclass(frozen=True)
class ValidationReport:
    suite: str
    success: bool
    evaluated: int
    successful: int
    row_count: int
    outcomes: list[ExpectationOutcome]

    def failures(self) -> list[str]:
        return [f"{self.suite}: {o.describe()}" for o in self.outcomes if not o.success]


def _record_row(record: InstanceSpec | InstancePrice) -> dict[str, Any]:
    try:
        return record.model_dump(warnings=False)
    except (ArithmeticError, TypeError, ValueError):
        # Only a model_construct()ed record gets here (e.g. accelerator_count 0 breaks the per-accelerator
        # division). Keep the row, with the failing computed field as None, so the suite reports it.
        row = {name: getattr(record, name, None) for name in type(record).model_fields}
        for name in type(record).model_computed_fields:
            try:
                row[name] = getattr(record, name)
            except (ArithmeticError, TypeError, ValueError, AttributeError):
                row[name] = None
        return row


def _spec_rows(batch: SourceBatch) -> list[dict[str, Any]]:
    return [_record_row(spec) for spec in batch.specs]


def _price_rows(batch: SourceBatch) -> list[dict[str, Any]]:
    rows = []
    for price in batch.prices:
        row = _record_row(price)
        kind = row.get("price_kind")
        row["price_kind"] = kind.value if isinstance(kind, Enum) else kind  # plain str for the set check
        region = REGION_NOT_STATED if row.get("region") is None else row["region"]
        row["business_key"] = f"{row.get('instance_type')}|{row['price_kind']}|{region}"
        rows.append(row)
    return rows


def _as_float(value: Any) -> float:
    if value is None:
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan  # not a number at all: shows up as missing, which the not-null checks catch


def _frame(rows: list[dict[str, Any]], columns: list[str], numeric: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(rows, columns=columns)  # zero rows still gives every column
    for column in numeric:
        frame[column] = pd.Series([_as_float(v) for v in frame[column]], index=frame.index, dtype="float64")
    return frame


def specs_frame(batch: SourceBatch) -> pd.DataFrame:
    """One row per spec, for validation only (Decimal columns become float)."""
    return _frame(_spec_rows(batch), SPEC_COLUMNS, SPEC_NUMERIC)


def prices_frame(batch: SourceBatch) -> pd.DataFrame:
    """One row per price plus business_key (instance_type|price_kind|region), for validation only."""
    return _frame(_price_rows(batch), PRICE_COLUMNS, PRICE_NUMERIC)


def _specs_expectations(gxe: Any) -> list:
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
) -> list:
    required = ["instance_type", "price_kind", "usd_per_instance_hour", "accelerator_count",
                "usd_per_accelerator_hour"]
    return [
        gxe.ExpectTableRowCountToBeBetween(min_value=1 if expects_prices else 0),
        *(gxe.ExpectColumnValuesToNotBeNull(column=column) for column in required),
        gxe.ExpectColumnValuesToBeBetween(
            column="usd_per_instance_hour", min_value=0, max_value=float(max_instance), strict_min=True
        ),
        gxe.ExpectColumnValuesToBeBetween(
            column="usd_per_accelerator_hour", min_value=0, max_value=float(max_accelerator), strict_min=True
        ),
        gxe.ExpectColumnValuesToBeBetween(column="accelerator_count", min_value=1),
        gxe.ExpectColumnValuesToBeInSet(column="price_kind", value_set=[kind.value for kind in PriceKind]),
        gxe.ExpectColumnValuesToBeUnique(column="business_key"),
        # Every price must have a spec in the same batch; an empty set fails every row, as it should.
        gxe.ExpectColumnValuesToBeInSet(column="instance_type", value_set=known_types),
    ]


def _import_gx() -> tuple[Any, Any]:
    os.environ["GX_ANALYTICS_ENABLED"] = "False"  # must be set before the first import
    import great_expectations as gx
    import great_expectations.expectations as gxe

    return gx, gxe


def _ephemeral_context(gx: Any) -> Any:
    from great_expectations.data_context.types.base import (DataContextConfig, InMemoryStoreBackendDefaults,
                                                             ProgressBarsConfig)

    config = DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),  # nothing on disk
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False, metric_calculations=False),  # no tqdm in the logs
    )
    # A fresh context per call (~1 ms): names never collide and nothing accumulates between batches. GE also
    # makes it the process-wide "current" context; everything used here is bound to it, so that is harmless.
    return gx.get_context(mode="ephemeral", project_config=config)


def _json_safe(value: Any) -> Any:
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalar
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None if math.isnan(value) else str(value)
    if isinstance(value, Enum):
        return _json_safe(value.value)
    return str(value)  # Decimal and anything else


def _error_message(info: Any) -> str | None:
    """GE reports an expectation's own error flat, and a failed metric keyed by metric id."""
    if not info:
        return None
    if isinstance(info, dict) and "raised_exception" in info:
        return f"raised {info.get('exception_message')}" if info["raised_exception"] else None
    errors = info.values() if isinstance(info, dict) else [info]
    return "raised " + "; ".join(str(getattr(e, "exception_message", e)) for e in errors)


def _outcome(result: Any, rows: list[dict[str, Any]]) -> ExpectationOutcome:
    config = result.expectation_config
    column = config.kwargs.get("column")
    details = result.result or {}
    values = details.get("partial_unexpected_list") or []
    indexes = details.get("partial_unexpected_index_list")
    if column and indexes and all(0 <= int(i) < len(rows) for i in indexes):
        # Quote the record's own value (exact Decimal string, None) rather than the float GE compared.
        values = [rows[int(i)].get(column) for i in indexes]
    detail = _error_message(result.exception_info)
    if detail is None and "observed_value" in details:
        detail = f"observed {details['observed_value']}"
    return ExpectationOutcome(
        expectation=config.type,
        column=column,
        success=bool(result.success),
        unexpected_count=details.get("unexpected_count"),
        partial_unexpected=[_json_safe(v) for v in values],
        detail=detail,
    )


def _run_suite(ctx: Any, gx: Any, name: str, expectations: list, frame: pd.DataFrame, rows: list) -> ValidationReport:
    # Expectation objects bind to the suite they are added to, so every run builds fresh ones.
    asset = ctx.data_sources.add_pandas(name).add_dataframe_asset(name)
    data = asset.add_batch_definition_whole_dataframe(name)
    suite = ctx.suites.add(gx.ExpectationSuite(name=name, expectations=expectations))
    definition = ctx.validation_definitions.add(gx.ValidationDefinition(name=name, data=data, suite=suite))
    result = definition.run(batch_parameters={"dataframe": frame})
    # GE groups results by metric, not suite order; restore the declared order for stable reports.
    position = {expectation.id: i for i, expectation in enumerate(suite.expectations)}
    ordered = sorted(result.results, key=lambda r: position.get(r.expectation_config.id, len(position)))
    return ValidationReport(
        suite=name,
        success=bool(result.success),
        evaluated=int(result.statistics["evaluated_expectations"]),
        successful=int(result.statistics["successful_expectations"]),
        row_count=len(frame),
        outcomes=[_outcome(r, rows) for r in ordered],
    )


def validate_batch(
    batch: SourceBatch,
    *,
    expects_prices: bool = True,
    max_usd_per_instance_hour: Decimal = Decimal("2000"),
    max_usd_per_accelerator_hour: Decimal = Decimal("200"),
) -> list[ValidationReport]:
    """Run the specs and prices suites on one batch; the batch may be landed only if every report succeeds."""
    gx, gxe = _import_gx()
    spec_rows, price_rows = _spec_rows(batch), _price_rows(batch)
    known_types = sorted({r["instance_type"] for r in spec_rows if isinstance(r.get("instance_type"), str)})
    prices_suite = _prices_expectations(gxe, expects_prices=expects_prices, known_types=known_types,
                                        max_instance=max_usd_per_instance_hour,
                                        max_accelerator=max_usd_per_accelerator_hour)
    specs, prices = _frame(spec_rows, SPEC_COLUMNS, SPEC_NUMERIC), _frame(price_rows, PRICE_COLUMNS, PRICE_NUMERIC)
    ctx = _ephemeral_context(gx)
    return [
        _run_suite(ctx, gx, SPECS_SUITE, _specs_expectations(gxe), specs, spec_rows),
        _run_suite(ctx, gx, PRICES_SUITE, prices_suite, prices, price_rows),
    ]
