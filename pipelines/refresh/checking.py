"""Whether a fetched body may land: parse, prepare (normalise), validate, drift-check; nothing here writes.

Validation runs on many prepared batches at once when it can (one Great Expectations run per kind: GE's cost
is per run, not per row); `check_body` is the one-source path.
"""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from pipelines.adapters import parser_for
from pipelines.errors import ParseError, ParserBug, RecordInvalid, SourceError, ValidationFailed
from pipelines.kind import LandedRead
from pipelines.kinds import kind_named
from pipelines.refresh.drift import DriftFindings, evaluate
from pipelines.refresh.state import WarehouseState
from pipelines.sources.file import SourceSpec
from schemas.gx_runner import ValidationReport

GE_LOCK = threading.Lock()  # one Great Expectations validation at a time in this process


@dataclass
class Checked:
    """A body after parse, prepare and validation: `batch` may land only when `error` is None."""

    batch: object | None = None
    reports: list[ValidationReport] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    error: SourceError | None = None
    stage: str = ""
    shape: str | None = None
    read_landed: bool = False  # see Prepared


def media_type_error(source: SourceSpec, content_type: str | None) -> ParseError | None:
    """An answer of the wrong kind (an HTML error page for a JSON API, a PDF) is refused before parsing."""
    if not content_type:
        return None
    media_type = content_type.split(";", 1)[0].strip().lower()
    expected = source.adapter_info.media_types
    if media_type in expected:
        return None
    return ParseError(source.id, f"answered with content type {media_type!r}, expected one of {list(expected)}")


@dataclass
class Prepared:
    """A body parsed and prepared (GPU: normalised to USD), waiting for its validation."""

    batch: Any
    warnings: list[str]
    counts: dict[str, int]
    shape: str | None
    # The kind's prepare read landed rows (GPU: the FX rates; Savings Plans: the EC2 types): the same body may then
    # make other rows than last time.
    read_landed: bool = False


T = TypeVar("T")


class WatchedState:
    """The landed state as a kind's prepare sees it, noting whether it read any."""

    def __init__(self, state: WarehouseState) -> None:
        self.state = state
        self.used = False

    def read(self, query: LandedRead[T]) -> T:
        self.used = True
        return self.state.read(query)


def prepare_body(
    source: SourceSpec, body: bytes | Path, on: date, state: WarehouseState, content_type: str | None = None
) -> Prepared | Checked:
    """Parse and prepare a body: a Prepared batch, or a Checked carrying why it may not land.

    `content_type` is the response's header (as logged in fetch_log): it refuses wrong media types, and its
    charset decides how an HTML page is decoded, ahead of the page's own <meta> charset.
    """
    wrong_type = media_type_error(source, content_type)
    if wrong_type is not None:
        return Checked(error=wrong_type, stage="parse")
    try:
        parsed = parser_for(source.adapter)(body, source, content_type)
    except RecordInvalid as exc:
        return Checked(error=ValidationFailed(source.id, exc.failures), stage="validate")
    except ParseError as exc:
        return Checked(error=exc, stage="parse")
    except Exception as exc:  # a parser bug must quarantine the page, not crash the run
        return Checked(error=bug(source, exc, "parser"), stage="parse")
    watched = WatchedState(state)
    try:
        prepared = kind_named(source.kind).prepare(parsed, source, on, watched)
    except ValidationFailed as exc:
        return Checked(error=exc, stage="validate")
    return Prepared(prepared.batch, prepared.warnings, prepared.counts, parsed.shape, watched.used)


def validate_prepared(batches: dict[str, tuple[SourceSpec, Prepared]]) -> dict[str, list[ValidationReport]]:
    """Great Expectations on many prepared batches, one stacked run per kind; each source's reports are the ones
    it would get alone."""
    by_kind: dict[str, dict[str, tuple[SourceSpec, Any]]] = {}
    for source_id, (source, prepared) in batches.items():
        by_kind.setdefault(source.kind, {})[source_id] = (source, prepared.batch)
    reports: dict[str, list[ValidationReport]] = {}
    with GE_LOCK:  # GE keeps a process-wide "current" context; its work holds the GIL anyway, so no loss
        for kind, group in by_kind.items():
            reports |= kind_named(kind).validate_many(group)
    return reports


def finish_check(
    source: SourceSpec,
    prepared: Prepared,
    reports: list[ValidationReport],
    state: WarehouseState,
    *,
    compare: bool = True,
) -> Checked:
    """The verdict: validation failures, then (unless `compare` is False) the drift rules against the current
    version."""
    kind = kind_named(source.kind)
    # Each failure names its source, as drift and record failures do: fetch_log.error and the quarantine
    # reasons are joined from these alone.
    failures = [f"[{source.id}] {f}" for report in reports for f in report.failures()]
    drift = DriftFindings()
    if not failures and compare:  # drift compares figures, which a batch that failed validation may not even have
        drift = evaluate(
            source.id,
            source.drift,
            state.baseline(kind, source.id, kind.scope(prepared.batch)).within(kind.regions_read(prepared.batch)),
            kind.prices(prepared.batch),
            prepared.shape,
            kind.row_count(prepared.batch),
        )
    failures += drift.quarantine
    if not failures and kind.gates is not None:
        try:
            kind.gates(prepared.batch, state)
        except ValidationFailed as exc:
            failures += exc.failures
    error = ValidationFailed(source.id, failures) if failures else None
    return Checked(
        prepared.batch,
        reports,
        prepared.warnings + drift.warnings,
        prepared.counts,
        error,
        "validate" if error else "",
        prepared.shape,
        prepared.read_landed,
    )


def check_past(source: SourceSpec, prepared: Prepared | Checked) -> Checked:
    """Great Expectations on a past version (Kind.past): no drift rule and no gate, which compare a body with the
    version landed before it in fetch order, and a past version is by design older than the one landed today."""
    if not isinstance(prepared, Prepared):
        return prepared
    reports = validate_prepared({source.id: (source, prepared)})[source.id]
    failures = [f"[{source.id}] {failure}" for report in reports for failure in report.failures()]
    error = ValidationFailed(source.id, failures) if failures else None
    stage = "validate" if error else ""
    return Checked(prepared.batch, reports, prepared.warnings, prepared.counts, error, stage, prepared.shape)


def check_body(
    source: SourceSpec, body: bytes | Path, on: date, state: WarehouseState, content_type: str | None = None
) -> Checked:
    """Parse, prepare (normalise), validate and drift-check a body: everything that decides whether it lands."""
    prepared = prepare_body(source, body, on, state, content_type)
    if isinstance(prepared, Checked):
        return prepared
    reports = validate_prepared({source.id: (source, prepared)})[source.id]
    return finish_check(source, prepared, reports, state)


# A bug in checking one page (not the page's fault) must quarantine that page, not crash the refresh.
CHECK_BUGS = (ArithmeticError, ValueError, TypeError, KeyError)


def bug(source: SourceSpec, exc: Exception, during: str) -> ParserBug:
    """The bug as the page's quarantine reason, chained to `exc`. The traceback is kept for the details log; the
    locals of its finished frames (a body of many MB) are let go."""
    traceback.clear_frames(exc.__traceback__)
    return ParserBug(source.id, exc, during)


def check_bug(source: SourceSpec, exc: Exception) -> Checked:
    return Checked(error=bug(source, exc, "checking"), stage="validate")


def check_prepared(
    items: list[tuple[SourceSpec, Prepared]], state: WarehouseState, as_landed: frozenset[str] = frozenset()
) -> dict[str, Checked]:
    """Validate many prepared batches at once (one GE run per kind), then each one's drift: their verdicts. The
    sources of `as_landed` brought the very body their current version was landed from, read by the same parser:
    their batch is that version, so there is no drift to look for."""
    try:
        reports = validate_prepared({source.id: (source, prepared) for source, prepared in items})
    except CHECK_BUGS as exc:
        return {source.id: check_bug(source, exc) for source, _ in items}
    verdicts = {}
    for source, prepared in items:
        try:
            verdicts[source.id] = finish_check(
                source, prepared, reports[source.id], state, compare=source.id not in as_landed
            )
        except CHECK_BUGS as exc:
            verdicts[source.id] = check_bug(source, exc)
    return verdicts
