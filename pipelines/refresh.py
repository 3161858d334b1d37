"""One source, start to finish: fetch -> archive -> parse -> prepare -> validate -> land (or quarantine).

Plain Python, shared by the Dagster assets, the CLI and the tests. It never raises for a problem with the
source: the outcome carries the typed error, so the caller decides how loudly to fail, and every other
source still lands. The warehouse is opened only after the network work is done (and briefly before, for
FX rates), so the writer lock is held for milliseconds, not for a slow page.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from pipelines.adapters import adapter_kind, media_types, parser_for, parser_version
from pipelines.archive import Archive
from pipelines.drift import DriftFindings, evaluate
from pipelines.errors import FetchError, ParseError, RecordInvalid, SourceError, ValidationFailed
from pipelines.fetch import Fetcher, FetchResult
from pipelines.kinds import KINDS
from pipelines.sources import SourceSpec
from pipelines.state import WarehouseState
from schemas.expectations import ValidationReport
from warehouse.db import connect
from warehouse.landing import FetchRecord, land_batch, log_fetch, quarantine_batch
from warehouse.queries import changes_for

GE_LOCK = threading.Lock()  # one Great Expectations validation at a time in this process

# What a landing may raise when the batch itself is at fault (the transaction is rolled back first).
WAREHOUSE_REFUSALS = (pa.ArrowInvalid, ArithmeticError, duckdb.ConstraintException, duckdb.ConversionException)


@dataclass
class SourceOutcome:
    source_id: str
    status: str  # landed | unchanged | quarantined | fetch_failed
    url: str
    fetch_id: int | None = None
    sha256: str | None = None
    fetched_at: datetime | None = None
    counts: dict[str, int] = field(default_factory=dict)
    inserted: int = 0
    closed: int = 0
    unchanged: int = 0
    changes: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    reports: list[ValidationReport] = field(default_factory=list)
    error: SourceError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


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


def fetch_record(source_id: str, result: FetchResult) -> FetchRecord:
    return FetchRecord(
        source_id=source_id,
        url=result.url,
        fetched_at=result.fetched_at,
        final_url=result.final_url,
        status=result.status,
        sha256=result.sha256,
        bytes=len(result.body),
        elapsed_ms=result.elapsed_ms,
        attempts=result.attempts,
        content_type=result.content_type,
    )


def secret_headers(source: SourceSpec) -> dict[str, str]:
    """Header values from the environment; a missing variable is named, its value never appears anywhere."""
    headers = {}
    for header, variable in source.headers_from_env.items():
        value = os.environ.get(variable)
        if not value:
            raise FetchError(source.id, f"environment variable {variable} (for header {header}) is not set")
        headers[header] = value
    return headers


def media_type_error(source: SourceSpec, content_type: str | None) -> ParseError | None:
    """An answer of the wrong kind (an HTML error page for a JSON API, a PDF) is refused before parsing."""
    if not content_type:
        return None
    media_type = content_type.split(";", 1)[0].strip().lower()
    expected = media_types(source.adapter)
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


def prepare_body(
    source: SourceSpec, body: bytes, on: date, state: WarehouseState, content_type: str | None = None
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
        return Checked(error=ParseError(source.id, f"unexpected {type(exc).__name__}: {exc}"), stage="parse")
    try:
        prepared = KINDS[adapter_kind(source.adapter)].prepare(parsed, source, on, state.fx)
    except ValidationFailed as exc:
        return Checked(error=exc, stage="validate")
    return Prepared(prepared.batch, prepared.warnings, prepared.counts, parsed.shape)


def validate_prepared(batches: dict[str, tuple[SourceSpec, Prepared]]) -> dict[str, list[ValidationReport]]:
    """Great Expectations on many prepared batches, one stacked run per kind; each source's reports are the ones
    it would get alone."""
    by_kind: dict[str, dict[str, tuple[SourceSpec, Any]]] = {}
    for source_id, (source, prepared) in batches.items():
        by_kind.setdefault(adapter_kind(source.adapter), {})[source_id] = (source, prepared.batch)
    reports: dict[str, list[ValidationReport]] = {}
    with GE_LOCK:  # GE keeps a process-wide "current" context; its work holds the GIL anyway, so no loss
        for kind, group in by_kind.items():
            reports |= KINDS[kind].validate_many(group)
    return reports


def finish_check(
    source: SourceSpec, prepared: Prepared, reports: list[ValidationReport], state: WarehouseState
) -> Checked:
    """The verdict: validation failures, then the drift rules against the current version."""
    kind = KINDS[adapter_kind(source.adapter)]
    # Each failure names its source, as drift and record failures do: fetch_log.error and the quarantine
    # reasons are joined from these alone.
    failures = [f"[{source.id}] {f}" for report in reports for f in report.failures()]
    drift = DriftFindings()
    if not failures:  # drift compares figures, which a batch that failed validation may not even have
        drift = evaluate(
            source.id,
            source.drift,
            state.baseline(kind.name, source.id),
            kind.prices(prepared.batch),
            prepared.shape,
            kind.row_count(prepared.batch),
        )
    failures += drift.quarantine
    error = ValidationFailed(source.id, failures) if failures else None
    return Checked(
        prepared.batch,
        reports,
        prepared.warnings + drift.warnings,
        prepared.counts,
        error,
        "validate" if error else "",
        prepared.shape,
    )


def check_body(
    source: SourceSpec, body: bytes, on: date, state: WarehouseState, content_type: str | None = None
) -> Checked:
    """Parse, prepare (normalise), validate and drift-check a body: everything that decides whether it lands."""
    prepared = prepare_body(source, body, on, state, content_type)
    if isinstance(prepared, Checked):
        return prepared
    reports = validate_prepared({source.id: (source, prepared)})[source.id]
    return finish_check(source, prepared, reports, state)


def fetch_source(source: SourceSpec, fetcher: Fetcher) -> FetchResult:
    """The network half: raises FetchError; touches neither the archive nor the warehouse."""
    return fetcher.fetch(
        source.id,
        str(source.url),
        allowed_hosts=frozenset({source.host}),
        method=source.method,
        body=source.request_body.encode() if source.request_body else None,
        content_type=source.request_content_type,
        headers=secret_headers(source),
    )


# A bug in checking one page (not the page's fault) must quarantine that page, not crash the refresh.
CHECK_BUGS = (ArithmeticError, ValueError, TypeError, KeyError)


def check_bug(source: SourceSpec, exc: Exception) -> Checked:
    return Checked(
        error=ParseError(source.id, f"unexpected {type(exc).__name__} while checking: {exc}"), stage="validate"
    )


def check_fetched(source: SourceSpec, result: FetchResult, archive: Archive, state: WarehouseState) -> Checked:
    """Archive the body, then decide whether it may land."""
    archive.put(result.body)
    try:
        return check_body(source, result.body, result.fetched_at.date(), state, result.content_type)
    except CHECK_BUGS as exc:
        return check_bug(source, exc)


def prepare_fetched(
    source: SourceSpec, result: FetchResult, archive: Archive, state: WarehouseState
) -> Prepared | Checked:
    """Archive the body, then parse and prepare it (validation comes later, many sources at once)."""
    archive.put(result.body)
    try:
        return prepare_body(source, result.body, result.fetched_at.date(), state, result.content_type)
    except CHECK_BUGS as exc:
        return check_bug(source, exc)


def check_prepared(items: list[tuple[SourceSpec, Prepared]], state: WarehouseState) -> dict[str, Checked]:
    """Validate many prepared batches at once (one GE run per kind), then each one's drift: their verdicts."""
    try:
        reports = validate_prepared({source.id: (source, prepared) for source, prepared in items})
    except CHECK_BUGS as exc:
        return {source.id: check_bug(source, exc) for source, _ in items}
    verdicts = {}
    for source, prepared in items:
        try:
            verdicts[source.id] = finish_check(source, prepared, reports[source.id], state)
        except CHECK_BUGS as exc:
            verdicts[source.id] = check_bug(source, exc)
    return verdicts


def log_fetch_failure(
    con: duckdb.DuckDBPyConnection, source: SourceSpec, error: FetchError, started: datetime
) -> SourceOutcome:
    url = str(source.url)
    record = FetchRecord(source.id, url, started, status=error.status)
    fetch_id = log_fetch(con, record, outcome="fetch_failed", error=str(error))
    return SourceOutcome(source.id, "fetch_failed", url, fetch_id=fetch_id, fetched_at=started, error=error)


def land_checked(
    con: duckdb.DuckDBPyConnection, source: SourceSpec, result: FetchResult, checked: Checked
) -> SourceOutcome:
    """The writing half, in one short transaction: the batch lands, or the body is quarantined with reasons."""
    outcome = SourceOutcome(
        source.id,
        "quarantined",
        str(source.url),
        sha256=result.sha256,
        fetched_at=result.fetched_at,
        counts=checked.counts,
        warnings=checked.warnings,
        reports=checked.reports,
        error=checked.error,
    )
    version = parser_version(source.adapter)
    fetch = replace(fetch_record(source.id, result), shape_fingerprint=checked.shape, warnings=tuple(checked.warnings))
    if checked.error is not None:
        error = checked.error
        reasons = error.failures if isinstance(error, ValidationFailed) else [str(error)]
        outcome.fetch_id = quarantine_batch(
            con, fetch, result.body, stage=checked.stage, reasons=reasons, parser_version=version
        )
        return outcome
    snapshots = KINDS[adapter_kind(source.adapter)].snapshots(checked.batch)
    try:
        landed = land_batch(con, fetch, version, snapshots)
    except WAREHOUSE_REFUSALS as exc:  # a value the typed tables cannot hold: refused whole, kept for study
        reason = f"[{source.id}] land: the warehouse refused the batch: {type(exc).__name__}: {exc}"
        outcome.error = ValidationFailed(source.id, [reason])
        outcome.fetch_id = quarantine_batch(
            con, fetch, result.body, stage="validate", reasons=[reason], parser_version=version
        )
        return outcome
    outcome.changes = changes_for(con, adapter_kind(source.adapter), source.id, landed.fetch_id, result.fetched_at)
    outcome.status, outcome.fetch_id = landed.outcome, landed.fetch_id
    outcome.inserted, outcome.closed, outcome.unchanged = landed.inserted, landed.closed, landed.unchanged
    return outcome


def refresh_source(source: SourceSpec, *, fetcher: Fetcher, db_path: Path | str, archive: Archive) -> SourceOutcome:
    """One source end to end. The warehouse is opened only after the network work (and briefly for the FX rates
    and the current version the batch is checked against)."""
    started = datetime.now(UTC)
    try:
        result = fetch_source(source, fetcher)
    except FetchError as exc:
        with connect(db_path) as con:
            return log_fetch_failure(con, source, exc, started)
    checked = check_fetched(source, result, archive, WarehouseState(db_path))
    with connect(db_path) as con:
        return land_checked(con, source, result, checked)
