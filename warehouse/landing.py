"""Writing one source's outcome: a validated batch lands (one transaction), a bad one goes to quarantine."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa

from warehouse.binding import execute
from warehouse.failpoints import failpoint
from warehouse.lake_checks import enforce_checks
from warehouse.past_snapshots import land_snapshot_at
from warehouse.queries import one_row
from warehouse.transactions import in_transaction, on_lake
from warehouse.versioning import (
    FactTable,
    LandCounts,
    Lineage,
    VersionedTable,
    land_facts,
    land_snapshot,
    snapshot_table,
)

MONEY = pa.decimal128(18, 6)


INSERT_FETCH = """
INSERT INTO fetch_log (fetch_id, source_id, url, final_url, status, fetched_at, sha256, bytes, elapsed_ms, attempts,
                       content_type, shape_fingerprint, warnings, parser_version, outcome, error, rows_inserted,
                       rows_closed)
VALUES ($fetch_id, $source_id, $url, $final_url, $status, $fetched_at, $sha256, $bytes, $elapsed_ms, $attempts,
        $content_type, $shape_fingerprint, $warnings, $parser_version, $outcome, $error, $inserted, $closed)
"""


# Ids come from macros warehouse.db defines per connection: the file's sequences, or a lake's PostgreSQL ones.
NEXT_FETCH_ID = "SELECT next_fetch_id()"


SET_FETCH_OUTCOME = """
UPDATE fetch_log SET outcome = $outcome, rows_inserted = $inserted, rows_closed = $closed,
                     parser_version = $parser_version, error = NULL,
                     shape_fingerprint = $shape_fingerprint, warnings = $warnings
WHERE fetch_id = $fetch_id
"""


INSERT_QUARANTINE = """
INSERT INTO quarantine (quarantine_id, source_id, fetch_id, url, fetched_at, sha256, parser_version, stage, reasons,
                        raw_body)
VALUES (next_quarantine_id(), $source_id, $fetch_id, $url, $fetched_at, $sha256, $parser_version, $stage, $reasons,
        $raw_body)
"""


@dataclass(frozen=True)
class FetchRecord:
    """What the fetch log keeps of one attempt (also built from the log itself by reparse)."""

    source_id: str
    url: str
    fetched_at: datetime
    final_url: str | None = None
    status: int | None = None
    sha256: str | None = None
    bytes: int | None = None
    elapsed_ms: int | None = None
    attempts: int | None = None
    content_type: str | None = None
    shape_fingerprint: str | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class LandResult:
    fetch_id: int
    outcome: str  # landed | unchanged
    inserted: int
    closed: int
    unchanged: int


def log_fetch(
    con: duckdb.DuckDBPyConnection,
    fetch: FetchRecord,
    *,
    outcome: str,
    parser_version: str | None = None,
    error: str | None = None,
) -> int:
    (fetch_id,) = one_row(con, NEXT_FETCH_ID)
    insert_fetch_row(con, fetch, int(fetch_id), outcome=outcome, parser_version=parser_version, error=error)
    return int(fetch_id)


def insert_fetch_row(
    con: duckdb.DuckDBPyConnection,
    fetch: FetchRecord,
    fetch_id: int,
    *,
    outcome: str,
    parser_version: str | None,
    error: str | None = None,
    inserted: int = 0,
    closed: int = 0,
) -> None:
    params = dict(vars(fetch), warnings=list(fetch.warnings), fetch_id=fetch_id, outcome=outcome, error=error)
    execute(con, INSERT_FETCH, params | {"parser_version": parser_version, "inserted": inserted, "closed": closed})


@dataclass(frozen=True)
class Snapshot:
    """Rows for one table from one fetch: versioned (type-2) or facts (added or corrected, never removed)."""

    table: VersionedTable | FactTable
    rows: list[dict[str, Any]]
    scope: dict[str, Any] = field(default_factory=dict)  # see VersionedTable.scope_columns
    # Business keys of rows refused one by one this time: their open versions stay open (the last good version
    # stays current), where an absent key would otherwise be closed as gone.
    kept: list[dict[str, Any]] = field(default_factory=list)
    # The snapshot covers only these values of these columns (an answer read region by region: {"region": [...]}):
    # open rows outside them are neither compared nor closed. Empty: it covers the whole source (or its scope).
    within: dict[str, list[Any]] = field(default_factory=dict)


def land_batch(
    con: duckdb.DuckDBPyConnection,
    fetch: FetchRecord,
    parser_version: str,
    snapshots: list[Snapshot],
    *,
    fetch_id: int | None = None,
) -> LandResult:
    """All tables of one fetch, with its fetch-log row, in a single transaction.

    `fetch_id` reuses an existing log row (reparse) instead of logging a new fetch.
    """

    def work() -> LandResult:
        if fetch_id is not None:
            return land_in_transaction(con, fetch, fetch_id, parser_version, snapshots)
        # The log row is written once, with its outcome, after the history rows: an UPDATE of it would read the
        # whole fetch log again (tens of milliseconds a landing on a lake). Nothing is committed before both are in.
        (new_id,) = one_row(con, NEXT_FETCH_ID)
        return land_in_transaction(con, fetch, int(new_id), parser_version, snapshots, log_new=True)

    return in_transaction(con, work)


def land_in_transaction(
    con: duckdb.DuckDBPyConnection,
    fetch: FetchRecord,
    fetch_id: int,
    parser_version: str,
    snapshots: list[Snapshot],
    at: datetime | None = None,
    next_observed: datetime | None = None,
    *,
    log_new: bool = False,
) -> LandResult:
    """The landing itself; the caller holds the transaction (reparse replays many fetches in one). `at`: the
    versions were true from then (a backfilled offer version's effective date), not from the fetch, until the
    next landing that observed the same scope (`next_observed`, see warehouse.past_snapshots). `log_new`: the fetch
    has no log row yet; it is inserted here, with the outcome, instead of updated."""
    lineage = Lineage(fetch_id, fetch.url, fetch.fetched_at, fetch.sha256 or "", parser_version)
    inserted = closed = unchanged = 0
    written: list[str] = []  # tables this fetch inserted rows into
    for snapshot in snapshots:
        counts: LandCounts
        if isinstance(snapshot.table, FactTable):
            counts = land_facts(con, snapshot.table, snapshot.rows, lineage)
        else:
            arrow = snapshot_table(snapshot.table, snapshot.rows, fetch.source_id, lineage, at)
            if at is None:
                counts = land_snapshot(
                    con,
                    snapshot.table,
                    arrow,
                    fetch.source_id,
                    fetch.fetched_at,
                    snapshot.scope,
                    snapshot.kept,
                    snapshot.within,
                )
            else:
                counts = land_snapshot_at(
                    con, snapshot.table, arrow, fetch.source_id, at, snapshot.scope, next_observed
                )
        inserted, closed, unchanged = (inserted + counts.inserted, closed + counts.closed, unchanged + counts.unchanged)
        if counts.inserted:
            written.append(snapshot.table.name)
        failpoint("landing")  # crash tests stop here: part of the batch written, nothing committed
    outcome = "landed" if inserted or closed else "unchanged"
    if written and on_lake(con):  # a lake stores no CHECKs: the rows this fetch wrote are tested against them here
        enforce_checks(con, written, fetch_id)
    if log_new:
        insert_fetch_row(
            con, fetch, fetch_id, outcome=outcome, parser_version=parser_version, inserted=inserted, closed=closed
        )
    else:
        execute(
            con,
            SET_FETCH_OUTCOME,
            {
                "outcome": outcome,
                "inserted": inserted,
                "closed": closed,
                "fetch_id": fetch_id,
                "parser_version": parser_version,
                "shape_fingerprint": fetch.shape_fingerprint,
                "warnings": list(fetch.warnings),
            },
        )
    return LandResult(fetch_id, outcome, inserted, closed, unchanged)


def quarantine_batch(
    con: duckdb.DuckDBPyConnection,
    fetch: FetchRecord,
    body: bytes,
    *,
    stage: str,
    reasons: list[str],
    parser_version: str | None,
) -> int:
    """Log the fetch as quarantined and keep its body and reasons; nothing reaches a history table."""

    def work() -> int:
        fetch_id = log_fetch(con, fetch, outcome="quarantined", parser_version=parser_version, error="; ".join(reasons))
        row = {"source_id": fetch.source_id, "fetch_id": fetch_id, "url": fetch.url, "fetched_at": fetch.fetched_at}
        row |= {"sha256": fetch.sha256, "parser_version": parser_version, "stage": stage, "reasons": reasons}
        execute(con, INSERT_QUARANTINE, row | {"raw_body": body})
        return fetch_id

    return in_transaction(con, work)
