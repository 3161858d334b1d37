"""One source, start to finish: fetch -> archive -> parse -> validate -> land (or quarantine).

Plain Python, shared by the Dagster assets, the CLI and the tests. It never raises for a problem with the
source: the outcome carries the typed error, so the caller decides how loudly to fail, and every other
source still lands. The warehouse is opened only after the network work is done, so the writer lock is held
for milliseconds, not for a slow page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from pipelines.adapters import parser_for, parser_version
from pipelines.archive import Archive
from pipelines.errors import FetchError, ParseError, SourceError, ValidationFailed
from pipelines.fetch import Fetcher, FetchResult
from pipelines.sources import SourceSpec
from schemas.expectations import ValidationReport, validate_batch
from schemas.records import SourceBatch
from warehouse.db import connect
from warehouse.landing import FetchRecord, land_batch, log_fetch, quarantine_batch
from warehouse.queries import price_changes


@dataclass
class SourceOutcome:
    source_id: str
    status: str  # landed | unchanged | quarantined | fetch_failed
    url: str
    fetch_id: int | None = None
    sha256: str | None = None
    fetched_at: datetime | None = None
    specs: int = 0
    prices: int = 0
    inserted: int = 0
    closed: int = 0
    unchanged: int = 0
    changes: list[dict] = field(default_factory=list)
    reports: list[ValidationReport] = field(default_factory=list)
    error: SourceError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def fetch_record(source_id: str, result: FetchResult) -> FetchRecord:
    return FetchRecord(
        source_id=source_id, url=result.url, fetched_at=result.fetched_at, final_url=result.final_url,
        status=result.status, sha256=result.sha256, bytes=len(result.body), elapsed_ms=result.elapsed_ms,
        attempts=result.attempts, content_type=result.content_type,
    )


def record_errors(source_id: str, exc: ValidationError) -> list[str]:
    return [
        f"[{source_id}] record invalid at {'.'.join(str(p) for p in err['loc']) or 'record'}: {err['msg']}"
        f" (input {err.get('input')!r})"
        for err in exc.errors()
    ]


def parse_and_validate(source: SourceSpec, body: bytes) -> tuple[SourceBatch | None, list[ValidationReport],
                                                                 SourceError | None, str]:
    """Parse a body and run the validation gate. Returns (batch, reports, error, stage of the error)."""
    try:
        batch = parser_for(source.adapter)(body, source)
    except ParseError as exc:
        return None, [], exc, "parse"
    except ValidationError as exc:
        return None, [], ValidationFailed(source.id, record_errors(source.id, exc)), "validate"
    except Exception as exc:  # a parser bug must quarantine the page, not crash the run
        return None, [], ParseError(source.id, f"unexpected {type(exc).__name__}: {exc}"), "parse"
    reports = validate_batch(batch, expects_prices=source.expects_prices)
    failures = [f for report in reports for f in report.failures()]
    if failures:
        return batch, reports, ValidationFailed(source.id, failures), "validate"
    return batch, reports, None, ""


def refresh_source(source: SourceSpec, *, fetcher: Fetcher, db_path: Path | str, archive: Archive) -> SourceOutcome:
    url = str(source.url)
    started = datetime.now(UTC)
    try:
        result = fetcher.fetch(source.id, url, allowed_hosts=frozenset({source.host}), method=source.method,
                               body=source.request_body.encode() if source.request_body else None,
                               content_type=source.request_content_type)
    except FetchError as exc:
        with connect(db_path) as con:
            fetch_id = log_fetch(con, FetchRecord(source.id, url, started, status=exc.status),
                                 outcome="fetch_failed", error=str(exc))
        return SourceOutcome(source.id, "fetch_failed", url, fetch_id=fetch_id, fetched_at=started, error=exc)

    archive.put(result.body)
    fetch = fetch_record(source.id, result)
    batch, reports, error, stage = parse_and_validate(source, result.body)
    outcome = SourceOutcome(source.id, "quarantined", url, sha256=result.sha256, fetched_at=result.fetched_at,
                            reports=reports, error=error)
    if batch is not None:
        outcome.specs, outcome.prices = len(batch.specs), len(batch.prices)
    with connect(db_path) as con:
        if error is not None:
            reasons = error.failures if isinstance(error, ValidationFailed) else [str(error)]
            outcome.fetch_id = quarantine_batch(con, fetch, result.body, stage=stage, reasons=reasons,
                                                parser_version=parser_version(source.adapter))
            return outcome
        landed = land_batch(con, batch, fetch)
        outcome.changes = price_changes(con, source.id, landed.fetch_id, result.fetched_at)
    outcome.status, outcome.fetch_id = landed.outcome, landed.fetch_id
    outcome.inserted, outcome.closed, outcome.unchanged = landed.inserted, landed.closed, landed.unchanged
    return outcome
