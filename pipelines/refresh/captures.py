"""`ratecard backfill captures`: dated captures others made of a source's page, landed into the history the daily
refresh writes, each at its own capture time.

Each capture (pipelines/sources/captures.py) is fetched, archived, read by its set's reader and validated like a
refresh's body (Great Expectations, no drift rule or gate, which compare it with what landed before in fetch order),
then woven into the source's history at the time it was captured (warehouse.past_snapshots):
- its fetch is logged at that time, so the rows it opens say when the page said so, and a reparse replays it in
  its place among the daily fetches (capture_log names the reader);
- from the next landing that observed the source after it (another capture or a daily fetch) on, nothing changes:
  a capture never overwrites what a daily fetch saw. A price a later fetch confirmed unchanged stays one version,
  from its first evidence, as for any unchanged price;
- it lands the tables it gives rows for: a capture that states no specification leaves the specifications as
  they are;
- capture_log records it with the fetch, in the same transaction: a rerun skips it and adds nothing;
- a bad capture is quarantined, named, and the others still land; a later run tries it again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

import duckdb

from pipelines.adapters import parser_version
from pipelines.errors import FetchError, ValidationFailed
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher
from pipelines.kinds import kind_named
from pipelines.refresh.checking import check_past
from pipelines.refresh.one_source import SourceOutcome, discard_body, fetch_record, fetch_source, prepare_fetched
from pipelines.refresh.state import WarehouseState
from pipelines.sources.captures import Capture, CaptureSet, in_date_order
from pipelines.sources.file import SourceSpec
from warehouse.binding import execute
from warehouse.db import connect
from warehouse.landing import FetchRecord, Snapshot, land_in_transaction, log_fetch, quarantine_batch
from warehouse.lock import exclusive_refresh
from warehouse.transactions import in_transaction

ALREADY = "already backfilled"

LANDED_CAPTURES = "SELECT capture_id FROM capture_log WHERE outcome IN ('landed', 'unchanged')"

# The first landing that observed the source after $at: a later capture or daily fetch bounds what this one says.
NEXT_OBSERVED = """
SELECT min(fetched_at) FROM fetch_log
WHERE source_id = $source_id AND outcome IN ('landed', 'unchanged') AND fetched_at > $at
"""

INSERT_CAPTURE = """
INSERT INTO capture_log (capture_id, capture_set, source_id, reader, captured_at, fetch_id, url, sha256, outcome,
                         parser_version)
VALUES ($capture_id, $capture_set, $source_id, $reader, $captured_at, $fetch_id, $url, $sha256, $outcome,
        $parser_version)
"""

# The readers of a source's capture fetches: what a reparse replays them with.
CAPTURE_READERS = "SELECT fetch_id, reader FROM capture_log WHERE source_id = $source_id"


@dataclass
class CaptureOutcome:
    capture_set: str
    capture: Capture
    outcome: SourceOutcome


def capture_readers(con: duckdb.DuckDBPyConnection, source_id: str) -> dict[int, str]:
    """fetch_id -> the reader of that capture, for the source's capture fetches."""
    return dict(execute(con, CAPTURE_READERS, {"source_id": source_id}).fetchall())


def stated(snapshots: list[Snapshot]) -> list[Snapshot]:
    """The tables a capture gives rows for: one it says nothing of is not emptied by it."""
    return [s for s in snapshots if s.rows]


def backfill_captures(
    sets: list[CaptureSet],
    sources: dict[str, SourceSpec],
    *,
    fetcher: Fetcher,
    db_path: Path | str,
    archive: Archive,
    lock_wait_s: float = 60.0,
    on_capture: Callable[[CaptureOutcome], None] | None = None,
) -> list[CaptureOutcome]:
    """Every capture of the sets, oldest first; each lands, is skipped (landed before), or is quarantined."""
    done = []
    with connect(db_path) as con:  # read once: the run itself lands each capture at most once
        landed = {row[0] for row in execute(con, LANDED_CAPTURES).fetchall()}
    for capture_set, capture in in_date_order(sets):
        spec = capture_set.reader_spec(sources[capture_set.source], capture)
        if capture.id in landed:
            result = SourceOutcome(spec.id, "unchanged", str(spec.url), warnings=[ALREADY])
        else:
            result = backfill_one(capture_set, capture, spec, fetcher=fetcher, db_path=db_path, archive=archive,
                                  lock_wait_s=lock_wait_s)  # fmt: skip
        outcome = CaptureOutcome(capture_set.id, capture, result)
        done.append(outcome)
        if on_capture is not None:
            on_capture(outcome)
    return done


def backfill_one(
    capture_set: CaptureSet,
    capture: Capture,
    spec: SourceSpec,
    *,
    fetcher: Fetcher,
    db_path: Path | str,
    archive: Archive,
    lock_wait_s: float,
) -> SourceOutcome:
    started = datetime.now(capture.captured_at.tzinfo)
    try:
        result = fetch_source(spec, fetcher, to_file=False)
    except FetchError as exc:
        return SourceOutcome(spec.id, "fetch_failed", str(spec.url), fetched_at=started, error=exc)
    try:
        checked = check_past(spec, prepare_fetched(spec, result, archive, WarehouseState(db_path)))
        version = parser_version(spec.adapter)
        # The capture's time is its fetch time: the page as it was then.
        fetch = replace(
            fetch_record(spec.id, result),
            fetched_at=capture.captured_at,
            shape_fingerprint=checked.shape,
            warnings=tuple(checked.warnings),
        )
        outcome = SourceOutcome(spec.id, "quarantined", str(spec.url), sha256=result.sha256,
                                fetched_at=capture.captured_at)  # fmt: skip
        outcome.counts, outcome.warnings, outcome.reports = checked.counts, checked.warnings, checked.reports
        with exclusive_refresh(db_path, wait_s=lock_wait_s), connect(db_path) as con:
            if checked.error is not None:
                error = checked.error
                reasons = error.failures if isinstance(error, ValidationFailed) else [str(error)]
                body = result.body if isinstance(result.body, bytes) else b""
                outcome.fetch_id = quarantine_batch(
                    con, fetch, body, stage=checked.stage, reasons=reasons, parser_version=version
                )
                outcome.error = error
                log_capture(con, capture_set, capture, fetch, outcome.fetch_id, "quarantined", version)
                return outcome
            snapshots = stated(kind_named(spec.kind).snapshots(checked.batch))
            land = _land(con, capture_set, capture, fetch, version, snapshots)
        outcome.status, outcome.fetch_id = land.status, land.fetch_id
        outcome.inserted, outcome.closed, outcome.unchanged = land.inserted, land.closed, land.unchanged
        return outcome
    finally:
        discard_body(result)


def _land(
    con: duckdb.DuckDBPyConnection,
    capture_set: CaptureSet,
    capture: Capture,
    fetch: FetchRecord,
    version: str,
    snapshots: list[Snapshot],
) -> SourceOutcome:
    def work() -> SourceOutcome:
        params = {"source_id": fetch.source_id, "at": capture.captured_at}
        ((next_observed,),) = execute(con, NEXT_OBSERVED, params).fetchall()
        fetch_id = log_fetch(con, fetch, outcome="landed", parser_version=version)
        landed = land_in_transaction(con, fetch, fetch_id, version, snapshots, capture.captured_at, next_observed)
        log_capture(con, capture_set, capture, fetch, fetch_id, landed.outcome, version)
        return SourceOutcome(
            fetch.source_id,
            landed.outcome,
            fetch.url,
            fetch_id=fetch_id,
            inserted=landed.inserted,
            closed=landed.closed,
            unchanged=landed.unchanged,
        )

    return in_transaction(con, work)


def log_capture(
    con: duckdb.DuckDBPyConnection,
    capture_set: CaptureSet,
    capture: Capture,
    fetch: FetchRecord,
    fetch_id: int,
    outcome: str,
    version: str,
) -> None:
    execute(
        con,
        INSERT_CAPTURE,
        {
            "capture_id": capture.id,
            "capture_set": capture_set.id,
            "source_id": fetch.source_id,
            "reader": capture_set.reader,
            "captured_at": capture.captured_at,
            "fetch_id": fetch_id,
            "url": fetch.url,
            "sha256": fetch.sha256 or "",
            "outcome": outcome,
            "parser_version": version,
        },
    )
