"""One source, start to finish: fetch -> archive -> parse -> prepare -> validate -> land (or quarantine).

Plain Python, shared by the Dagster assets, refresh_all (the CLI) and the tests, as phases they compose:
fetch_source (network only), check_fetched / prepare_fetched (archive, then pipelines.refresh.checking), and
log_fetch_failure / land_checked (one short transaction). It never raises for a problem with the source: the
outcome carries the typed error, so the caller decides how loudly to fail, and every other source still lands.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from pipelines.adapters import parser_version
from pipelines.clock import utc_now
from pipelines.errors import FetchError, SourceError, ValidationFailed
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchResult
from pipelines.fetch.split_pages import fetch_answer
from pipelines.kind import REFUSED
from pipelines.kinds import kind_named
from pipelines.refresh.checking import CHECK_BUGS, Checked, Prepared, check_body, check_bug, prepare_body
from pipelines.refresh.source_text import read_or_source_text
from pipelines.refresh.state import WarehouseState
from pipelines.sources.file import SourceSpec
from schemas.gx_runner import ValidationReport
from warehouse.binding import execute
from warehouse.db import connect
from warehouse.failpoints import failpoint
from warehouse.landing import FetchRecord, land_batch, log_fetch, quarantine_batch
from warehouse.queries import LAST_LANDINGS, rows_as_dicts

# What a landing may raise when the batch itself is at fault (the transaction is rolled back first).
WAREHOUSE_REFUSALS = (pa.ArrowInvalid, ArithmeticError, duckdb.ConstraintException, duckdb.ConversionException)
NOT_CONFIGURED = "not_configured"  # the outcome of a source whose credential is not set: neither landed nor failed


@dataclass
class SourceOutcome:
    source_id: str
    status: str  # landed | unchanged | quarantined | fetch_failed | not_configured; reparse: rolled_back
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

    @property
    def refused(self) -> int:
        """Rows or tables refused one by one while the rest landed (a partial failure: each named in `warnings`)."""
        return self.counts.get(REFUSED, 0)


def fetch_record(source_id: str, result: FetchResult) -> FetchRecord:
    return FetchRecord(
        source_id=source_id,
        url=result.url,
        fetched_at=result.fetched_at,
        final_url=result.final_url,
        status=result.status,
        sha256=result.sha256,
        bytes=result.size,
        elapsed_ms=result.elapsed_ms,
        attempts=result.attempts,
        content_type=result.content_type,
    )


def secret_headers(source: SourceSpec) -> dict[str, str]:
    """Header values from the environment; a missing variable is named (the source is not configured), its value never
    appears anywhere."""
    headers = {}
    for header, variable in source.headers_from_env.items():
        value = os.environ.get(variable)
        if not value:
            raise FetchError(
                source.id,
                f"not configured: environment variable {variable} (for header {header}) is not set; "
                "the source is left out until it is",
                cause="not-configured",
            )
        headers[header] = value
    return headers


def fetch_source(source: SourceSpec, fetcher: Fetcher, *, to_file: bool | None = None) -> FetchResult:
    """The network half: raises FetchError; touches neither the archive nor the warehouse. An adapter that
    reads files (a price-list offer file, ~250 MB) gets its body streamed to a temporary file, which
    discard_body removes once the body has landed or been quarantined (`to_file` overrides the adapter's say)."""
    failpoint("fetch")  # stop tests signal here: in a worker thread, before the request
    request: dict[str, Any] = {
        "allowed_hosts": frozenset({source.host}),
        "method": source.method,
        "body": source.request_body.encode() if source.request_body else None,
        "content_type": source.request_content_type,
        "headers": secret_headers(source),
        "max_bytes": source.max_bytes,
    }
    if source.paging is not None:  # every page, kept as one body (or, where it splits, every page of each part)
        return fetch_answer(fetcher, source.id, str(source.url), source.paging, **request)
    spool = None
    if source.adapter_info.reads_files if to_file is None else to_file:
        handle, name = tempfile.mkstemp(prefix=f"ratecard-{source.id}-", suffix=".zst")  # the fetcher compresses
        os.close(handle)  # the fetcher reopens it for each attempt
        spool = Path(name)
    try:
        return fetcher.fetch(source.id, str(source.url), spool_to=spool, **request)
    except BaseException:
        if spool is not None:
            spool.unlink(missing_ok=True)
        raise


def discard_body(result: FetchResult) -> None:
    if result.body_file is not None:
        result.body_file.unlink(missing_ok=True)


def archived(result: FetchResult, archive: Archive) -> bytes | Path:
    """Archive the body (zstd, by its SHA-256) before anything reads it; returns it: the bytes, or the file it was
    streamed to. That file is zstd already (the fetcher compresses as it downloads), so archiving it is a copy of a
    few MB."""
    if result.body_file is None:
        archive.put(result.body)
        return result.body
    archive.put_file(result.body_file, result.sha256)
    return result.body_file


def check_fetched(source: SourceSpec, result: FetchResult, archive: Archive, state: WarehouseState) -> Checked:
    """Archive the body, then decide whether it may land."""
    body = archived(result, archive)
    try:
        return check_body(source, body, result.fetched_at.date(), state, result.content_type)
    except CHECK_BUGS as exc:
        return check_bug(source, exc)


def prepare_fetched(
    source: SourceSpec, result: FetchResult, archive: Archive, state: WarehouseState
) -> Prepared | Checked:
    """Archive the body, then parse and prepare it (validation comes later, many sources at once)."""
    body = archived(result, archive)
    try:
        return prepare_body(source, body, result.fetched_at.date(), state, result.content_type)
    except CHECK_BUGS as exc:
        return check_bug(source, exc)


def log_fetch_failure(
    con: duckdb.DuckDBPyConnection, source: SourceSpec, error: FetchError, started: datetime
) -> SourceOutcome:
    """The failed fetch logged as fetch_failed; a source not configured is logged nowhere (it was never tried)."""
    url = str(source.url)
    if error.cause == "not-configured":  # a keyed source whose key is not set: left out, failing nothing
        return SourceOutcome(source.id, NOT_CONFIGURED, url, fetched_at=started, warnings=[str(error)])
    record = FetchRecord(source.id, url, started, status=error.status)
    fetch_id = log_fetch(con, record, outcome="fetch_failed", error=str(error))
    return SourceOutcome(source.id, "fetch_failed", url, fetch_id=fetch_id, fetched_at=started, error=error)


class LastLandings:
    """Each source's newest landing (by the time it speaks for), read once for all the sources of a refresh when
    the first is asked for: on a lake every query is a catalog round trip."""

    def __init__(self, source_ids: list[str]) -> None:
        self.source_ids = source_ids
        self.found: dict[str, list[str]] | None = None

    def same(self, con: duckdb.DuckDBPyConnection, source_id: str, sha256: str, version: str) -> bool:
        """Whether the source's newest landing had this body and this parser, and was not a capture."""
        if self.found is None:
            rows = execute(con, LAST_LANDINGS, {"source_ids": self.source_ids}).fetchall()
            self.found = {sid: list(last) for sid, last in rows}
        return self.found.get(source_id) == [sha256, version, "false"]


def land_checked(
    con: duckdb.DuckDBPyConnection,
    source: SourceSpec,
    result: FetchResult,
    checked: Checked,
    landings: LastLandings | None = None,
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
    # A body streamed to a file (a price-list offer file) is quarantined by its archived copy: raw_body stays empty.
    if checked.error is not None:
        error = checked.error
        reasons = error.failures if isinstance(error, ValidationFailed) else [str(error)]
        outcome.fetch_id = quarantine_batch(
            con, fetch, result.body, stage=checked.stage, reasons=reasons, parser_version=version
        )
        return outcome
    kind = kind_named(source.kind)
    # The same bytes read by the same parser make the same rows: the diff would find nothing, so none is run (on a
    # lake each table's diff is a catalog round trip). Not when preparing the batch read landed rows (GPU prices
    # convert with the day's FX rates; Savings Plans rates price the landed EC2 types).
    if landings is None:  # one source alone
        landings = LastLandings([source.id])
    same = not checked.read_landed and landings.same(con, source.id, result.sha256, version)
    snapshots = kind.snapshots(checked.batch)
    try:
        landed = land_batch(con, fetch, version, [] if same else snapshots)
    except WAREHOUSE_REFUSALS as exc:  # a value the typed tables cannot hold: refused whole, kept for study
        reason = f"[{source.id}] land: the warehouse refused the batch: {type(exc).__name__}: {exc}"
        outcome.error = ValidationFailed(source.id, [reason])
        outcome.fetch_id = quarantine_batch(
            con, fetch, result.body, stage="validate", reasons=[reason], parser_version=version
        )
        return outcome
    if (changes := kind.history.changes) and not same:  # "what changed", for the materialisation
        params = {"source_id": source.id, "fetch_id": landed.fetch_id, "observed_at": result.fetched_at}
        outcome.changes = rows_as_dicts(con, changes, params)
    outcome.status, outcome.fetch_id = landed.outcome, landed.fetch_id
    outcome.inserted, outcome.closed, outcome.unchanged = landed.inserted, landed.closed, landed.unchanged
    if same:  # every row of the batch is as it was
        outcome.unchanged = sum(len(snapshot.rows) for snapshot in snapshots)
    return outcome


def refresh_source(source: SourceSpec, *, fetcher: Fetcher, db_path: Path | str, archive: Archive) -> SourceOutcome:
    """One source end to end. The warehouse is opened once the page is fetched, and that one connection reads
    the FX rates and the current version the batch is checked against, then lands it: each opening of a DuckDB
    file costs a new database instance (10-20 ms, and as much again to close)."""
    started = utc_now()
    try:
        result = fetch_source(source, fetcher)
    except FetchError as exc:
        with connect(db_path) as con:
            return log_fetch_failure(con, source, exc, started)
    try:
        with connect(db_path) as con:
            # A page that lost its table is read from its source text (pipelines.refresh.source_text), fetched
            # with the warehouse open: a single-source refresh is the only writer, and the fetch is bounded.
            state = WarehouseState(con=con)
            result, checked = read_or_source_text(
                source, result, lambda s, r: check_fetched(s, r, archive, state), lambda s: fetch_source(s, fetcher)
            )
            return land_checked(con, source, result, checked)
    finally:
        discard_body(result)
