"""Many sources' batches of one kind validated in one Great Expectations run, reported per source.

A GE run costs about the same for 5 rows as for 5,000: the time goes into building each expectation's metric
graph, once per run. So the batches of one suite are stacked into one frame, validated once, and each source's
report is cut out of the result by row position. It is the report validating that source alone gives:
- column-map expectations run with result_format COMPLETE, which lists every offending row's position; a
  source's unexpected count and its first quoted values come from its own rows only;
- columns whose check spans rows (a unique business key, "priced instance types have a spec in this batch")
  are handed to GE scoped: each value prefixed with its source id, so a value can only collide with, or be
  found among, values of its own source. Quotes come from the records, so they show the plain value;
- the table row count is checked per source, from the stacked counts, against that source's own
  ExpectTableRowCountToBeBetween.
When an expectation raises inside GE the failure cannot be pinned on one source, so every source is then
validated alone (the caller's `alone`).
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from schemas.gx_frames import frame
from schemas.gx_results import raised
from schemas.gx_runner import (
    ExpectationOutcome,
    ValidationReport,
    expected_bounds,
    import_gx,
    outcome_of,
    report_of,
    run_suite,
)
from schemas.gx_runner import validate_frame as run_ge

PARTIAL_UNEXPECTED = 20  # GE's default partial_unexpected_count: how many offending rows a SUMMARY run quotes
_SCOPE_SEPARATOR = "\x1f"  # ASCII unit separator: appears in no source id, instance type or business key


Batch = TypeVar("Batch")


@dataclass(frozen=True)
class SourceRows:
    """One source's rows for a suite, built exactly as validating it alone builds them."""

    source_id: str
    rows: list[dict[str, Any]]
    row_count: Any  # this source's ExpectTableRowCountToBeBetween


@dataclass(frozen=True)
class StackedSuite:
    """What the suite's frame looks like (see gx_runner.frame) and which columns compare within a source only."""

    name: str
    columns: list[str]
    numbers: Sequence[str] = ()
    money: Sequence[str] = ()
    scoped: Sequence[str] = ()


def scoped(source_id: str, value: Any) -> Any:
    """A value that equals another scoped value only when both sources and both values are equal.

    Missing values stay missing, so not-null checks and null-skipping checks treat them as they do alone.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return value
    shown = value if isinstance(value, str) else f"{type(value).__qualname__}:{value!r}"  # 5 never meets "5"
    return f"{source_id}{_SCOPE_SEPARATOR}{shown}"


def _stacked_rows(suite: StackedSuite, sources: list[SourceRows]) -> list[dict[str, Any]]:
    return [
        {**row, **{column: scoped(source.source_id, row.get(column)) for column in suite.scoped}}
        for source in sources
        for row in source.rows
    ]


def row_count_outcome(expectation: Any, rows: int) -> ExpectationOutcome:
    """ExpectTableRowCountToBeBetween on one source's row count, reported as GE reports it."""
    low, high = expectation.min_value, expectation.max_value
    if not all(bound is None or isinstance(bound, int) for bound in (low, high)):
        raise TypeError(f"row count bounds must be whole numbers, not {low!r} / {high!r}")
    above = low is None or (rows > low if expectation.strict_min else rows >= low)
    below = high is None or (rows < high if expectation.strict_max else rows <= high)
    config = expectation.configuration
    detail = f"observed {rows}" + expected_bounds(config.kwargs)
    return ExpectationOutcome(config.type, None, above and below, None, [], detail)


def _source_details(details: dict[str, Any], starts: list[int]) -> list[dict[str, Any]]:
    """A column-map result's unexpected rows, split by source (row positions relative to the source)."""
    if "unexpected_index_list" not in details:
        raise TypeError("only column-map expectations can be validated stacked")
    indexes: list[list[int]] = [[] for _ in starts]
    values: list[list[Any]] = [[] for _ in starts]
    for index, value in zip(details["unexpected_index_list"], details["unexpected_list"], strict=True):
        owner = bisect.bisect_right(starts, int(index)) - 1
        indexes[owner].append(int(index) - starts[owner])
        values[owner].append(value)
    return [
        {
            "unexpected_count": len(own),
            "partial_unexpected_list": own_values[:PARTIAL_UNEXPECTED],
            "partial_unexpected_index_list": own[:PARTIAL_UNEXPECTED],
        }
        for own, own_values in zip(indexes, values, strict=True)
    ]


def validate_stacked(
    suite: StackedSuite,
    sources: list[SourceRows],
    column_expectations: list[Any],
    alone: Callable[[str], ValidationReport],
) -> dict[str, ValidationReport]:
    """Each source's report for the suite [row count, *column_expectations], from one GE run over all of them."""
    if not sources:
        return {}
    if len({source.source_id for source in sources}) != len(sources):
        raise ValueError(f"{suite.name}: a source appears twice among the batches")
    if any(getattr(expectation, "mostly", 1) != 1 for expectation in column_expectations):
        raise ValueError(f"{suite.name}: a 'mostly' check cannot be split by source")  # success is then a share
    data = frame(_stacked_rows(suite, sources), suite.columns, numbers=suite.numbers, money=suite.money)
    results = run_ge(suite.name, column_expectations, data, "COMPLETE")
    if any(raised(result) for result in results):
        return {source.source_id: alone(source.source_id) for source in sources}
    starts = list(itertools.accumulate((len(s.rows) for s in sources[:-1]), initial=0))
    split = [_source_details(result.result or {}, starts) for result in results]
    reports: dict[str, ValidationReport] = {}
    for position, source in enumerate(sources):
        outcomes = [row_count_outcome(source.row_count, len(source.rows))]
        for result, per_source in zip(results, split, strict=True):
            details = per_source[position]
            success = details["unexpected_count"] == 0
            outcomes.append(outcome_of(result.expectation_config, success, details, None, source.rows))
        reports[source.source_id] = report_of(suite.name, outcomes, len(source.rows))
    return reports


@dataclass(frozen=True)
class RowSuite(Generic[Batch]):
    """A kind's suite over one list of rows per batch: its row count and column checks, on one batch alone or on
    many stacked into one GE run (each source then gets the report it would alone)."""

    stacked: StackedSuite
    rows_of: Callable[[Batch], list[dict[str, Any]]]
    row_count: Callable[[Any], Any]  # gxe -> the batch's ExpectTableRowCountToBeBetween
    column_checks: Callable[[Any], list[Any]]  # gxe -> the column expectations

    def validate(self, batch: Batch) -> list[ValidationReport]:
        _, gxe = import_gx()
        rows = self.rows_of(batch)
        data = frame(rows, self.stacked.columns, numbers=self.stacked.numbers, money=self.stacked.money)
        return [run_suite(self.stacked.name, [self.row_count(gxe), *self.column_checks(gxe)], data, rows)]

    def validate_many(self, batches: Mapping[str, Batch]) -> dict[str, list[ValidationReport]]:
        _, gxe = import_gx()
        sources = [SourceRows(sid, self.rows_of(batch), self.row_count(gxe)) for sid, batch in batches.items()]
        reports = validate_stacked(
            self.stacked, sources, self.column_checks(gxe), lambda sid: self.validate(batches[sid])[0]
        )
        return {sid: [report] for sid, report in reports.items()}
