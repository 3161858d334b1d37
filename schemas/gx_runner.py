"""Running Great Expectations suites in-process on a DataFrame: the machinery every suite shares.

great_expectations is imported lazily (it costs seconds). One ephemeral context per process (nothing on disk, no
analytics, no progress bars) holds a single whole-DataFrame batch definition; every run hands it a fresh batch
and a fresh, unsaved suite, and Batch.validate stores no result, so nothing carries over from one run to the
next. Runs are serialised by a lock: GE's context is not thread-safe, and the work is CPU-bound Python that
threads could not overlap anyway. Reports quote offending values from the records themselves (exact Decimal
strings), not what GE compared.

No float is involved in a comparison. GE 1.x types every between-bound as float (a Decimal bound becomes the
nearest float: 0.01 turns into 0.01000000000000000020816...), but compares the column's own objects with it, and
Python compares Decimal with float exactly. So numbers reach GE as Decimal objects (object dtype), money in
millionths of its unit, and every bound is a whole number (whole micro-units for money) that a float holds
exactly.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import threading
from dataclasses import dataclass
from enum import Enum
from typing import Any

import pandas as pd

from schemas import gx_memo, gx_results
from schemas.deferred_import import deferred
from schemas.gx_frames import float_columns

_SHOWN_VALUES = 5  # offending values quoted by describe()
_EXPECTED_KWARGS = ("value_set", "min_value", "max_value")  # quoted when a table-level expectation fails


@dataclass(frozen=True)
class ExpectationOutcome:
    expectation: str
    column: str | None
    success: bool
    unexpected_count: int | None
    partial_unexpected: list[Any]
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


class _DropLossyDecimalNotice(logging.Filter):
    """GE warns when it turns an unexpected Decimal into a float for its own result JSON. The reports here quote
    the record's exact value instead, so the warning (in micro-units) would only mislead the logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Using lossy conversion for decimal")


def _quiet_lossy_decimal_notices() -> None:
    logger = logging.getLogger("great_expectations.util")
    if not any(isinstance(f, _DropLossyDecimalNotice) for f in logger.filters):
        logger.addFilter(_DropLossyDecimalNotice())


def import_gx() -> tuple[Any, Any]:
    os.environ["GX_ANALYTICS_ENABLED"] = "False"  # must be set before the first import
    # A third of GE's import time, for expectations ratecard never runs (scipy) and their charts (altair).
    with deferred("scipy.stats"), deferred("altair"):
        import great_expectations as gx
        import great_expectations.expectations as gxe

    _quiet_lossy_decimal_notices()
    from great_expectations.core.id_dict import IDDict
    from great_expectations.expectations.expectation import Expectation

    gx_memo.install(Expectation, IDDict)
    return gx, gxe


def ephemeral_context(gx: Any) -> Any:
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    config = DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),  # nothing on disk
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False, metric_calculations=False),  # no tqdm in the logs
    )
    # GE also makes it the process-wide "current" context; everything used here is bound to the object itself,
    # so another context made later is harmless.
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


def outcome_of(
    config: Any, success: bool, details: dict[str, Any], exception_info: Any, rows: list[dict[str, Any]]
) -> ExpectationOutcome:
    """One expectation's outcome from GE's result parts; `rows` are the records the frame's rows came from."""
    column = config.kwargs.get("column")
    values = details.get("partial_unexpected_list") or []
    indexes = details.get("partial_unexpected_index_list")
    if column and indexes and all(0 <= int(i) < len(rows) for i in indexes):
        # Quote the record's own value (exact Decimal string, None) rather than the float GE compared.
        values = [rows[int(i)].get(column) for i in indexes]
    detail = _error_message(exception_info)
    if detail is None and "observed_value" in details:
        detail = f"observed {details['observed_value']}" + expected_bounds(config.kwargs)
    return ExpectationOutcome(
        expectation=config.type,
        column=column,
        success=success,
        unexpected_count=details.get("unexpected_count"),
        partial_unexpected=[_json_safe(v) for v in values],
        detail=detail,
    )


def expected_bounds(kwargs: dict[str, Any]) -> str:
    wanted = {k: _json_safe(v) for k, v in kwargs.items() if k in _EXPECTED_KWARGS and v is not None}
    return f", expected {wanted}" if wanted else ""


def _refuse_float_columns(name: str, data: pd.DataFrame) -> None:
    floats = float_columns(data)
    if floats:  # a float column would be compared inexactly: list it in frame()'s numbers or money instead
        raise TypeError(f"{name}: float columns handed to Great Expectations: {', '.join(floats)}")


def in_declared_order(suite: Any, results: list[Any]) -> list[Any]:
    """GE groups results by metric, not suite order: the suite's declared order, for stable reports."""
    position = {expectation.id: i for i, expectation in enumerate(suite.expectations)}
    return sorted(results, key=lambda r: position.get(r.expectation_config.id, len(position)))


class _Gate:
    """The process's one GE context and whole-DataFrame batch definition, built on first use."""

    _lock = threading.Lock()
    _batch_definition: Any = None

    @classmethod
    def batch_definition(cls, gx: Any) -> Any:
        """The whole-DataFrame batch definition, made on first use; call it holding the lock."""
        if cls._batch_definition is None:
            source = ephemeral_context(gx).data_sources.add_pandas("ratecard_gate")
            cls._batch_definition = source.add_dataframe_asset("frames").add_batch_definition_whole_dataframe("all")
        return cls._batch_definition

    @classmethod
    def warm_up(cls) -> None:
        gx, _ = import_gx()
        with cls._lock:
            cls.batch_definition(gx)

    @classmethod
    def validate(cls, name: str, expectations: list[Any], frame: pd.DataFrame, result_format: str) -> list[Any]:
        """GE's results for the suite on this frame, in the suite's declared order (kept: schemas.gx_results)."""
        key = gx_results.key_of(name, expectations, frame, result_format)
        if (kept := gx_results.found(key)) is not None:
            return kept
        gx, _ = import_gx()
        with cls._lock:
            batch_definition = cls.batch_definition(gx)
            # Expectation objects bind to the suite they are added to, so every run builds fresh ones.
            suite = gx.ExpectationSuite(name=name, expectations=expectations)
            batch = batch_definition.get_batch(batch_parameters={"dataframe": frame})
            with gx_memo.memoised():
                result = batch.validate(suite, result_format=result_format)
        ordered = in_declared_order(suite, result.results)
        gx_results.keep(key, ordered)
        return ordered


def warm_up() -> None:
    """Import Great Expectations and build the gate now; a failure is left to the first validation, which meets
    it again and reports it."""
    with contextlib.suppress(Exception):
        _Gate.warm_up()


def validate_frame(name: str, expectations: list[Any], frame: pd.DataFrame, result_format: str) -> list[Any]:
    """Run GE on a frame (refusing float columns); GE's per-expectation results in declared order."""
    _refuse_float_columns(name, frame)
    return _Gate.validate(name, expectations, frame, result_format)


def report_of(name: str, outcomes: list[ExpectationOutcome], row_count: int) -> ValidationReport:
    successful = sum(o.success for o in outcomes)
    return ValidationReport(name, successful == len(outcomes), len(outcomes), successful, row_count, outcomes)


def run_suite(name: str, expectations: list[Any], frame: pd.DataFrame, rows: list[dict[str, Any]]) -> ValidationReport:
    results = validate_frame(name, expectations, frame, "SUMMARY")
    outcomes = [
        outcome_of(r.expectation_config, bool(r.success), r.result or {}, r.exception_info, rows) for r in results
    ]
    return report_of(name, outcomes, len(frame))
