"""Re-parse a source's archived bodies with today's parser and rebuild its history from them.

After a parser fix, `ratecard reparse --source ID` replays every fetch of that source that returned a body,
oldest first, through parse -> validate -> versioned landing, each at its original fetch time. The rebuild is
one transaction: SQL readers see the old history or the corrected one, never a half-rebuilt mix.

A rebuild that would leave the source fewer current rows because fetches that landed before are now refused (a
parser that broke, not one that was fixed) is rolled back, so the last good version stays current, unless the
caller accepts the shrink (`reparse --force`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from duckdb import DuckDBPyConnection

from pipelines.adapters import parser_version
from pipelines.errors import ReparseRolledBack, SourceError, ValidationFailed
from pipelines.fetch.archive import Archive
from pipelines.kind import History
from pipelines.kinds import kind_named
from pipelines.refresh.captures import capture_readers, stated
from pipelines.refresh.checking import check_body, check_past, prepare_body
from pipelines.refresh.state import WarehouseState
from pipelines.sources.file import SourceSpec
from warehouse.db import connect
from warehouse.landing import INSERT_QUARANTINE, FetchRecord, land_in_transaction
from warehouse.queries import one_row, rows_as_dicts
from warehouse.transactions import transaction

REPLAYABLE_FETCHES = """
SELECT fetch_id, outcome, source_id, url, final_url, status, fetched_at, sha256, bytes, elapsed_ms, attempts,
       content_type
FROM fetch_log
WHERE source_id = $source_id AND sha256 IS NOT NULL AND outcome <> 'fetch_failed'
ORDER BY fetched_at, fetch_id
"""

MARK_QUARANTINED = """
UPDATE fetch_log SET outcome = 'quarantined', rows_inserted = 0, rows_closed = 0,
                     parser_version = $parser_version, error = $error
WHERE fetch_id = $fetch_id
"""

FORGET_QUARANTINE = "DELETE FROM quarantine WHERE fetch_id = $fetch_id"

CURRENT_ROWS = "SELECT count(*) FROM {table} WHERE source_id = $source_id AND valid_to IS NULL"


@dataclass
class ReparseResult:
    source_id: str
    fetches: int = 0
    landed: int = 0
    unchanged: int = 0
    quarantined: int = 0
    rows_before: int = 0  # current rows of the source before the rebuild, and after it
    rows_after: int = 0


@dataclass
class RefusedFetch:
    """A fetch that landed before and that today's parser refuses."""

    fetch_id: int
    fetched_at: datetime
    url: str
    error: SourceError
    reasons: list[str]


def current_rows(con: DuckDBPyConnection, history: History, source_id: str) -> int:
    """The source's open rows in the kind's versioned tables (its tables rebuilt from scratch), or its facts (FX
    rates, by date without a source_id: the rows its fetches added)."""
    queries = [CURRENT_ROWS.format(table=t) for t in history.tables]
    queries += [history.facts_current] if history.facts_current else []
    return sum(int(one_row(con, query, {"source_id": source_id})[0]) for query in queries)


def rolled_back(source_id: str, refused: RefusedFetch, before: int, after: int) -> ReparseRolledBack:
    return ReparseRolledBack(
        source_id,
        f"rolled back: today's parser would leave {after} current rows of {before}, because fetch "
        f"{refused.fetch_id} of {refused.fetched_at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC ({refused.url}), "
        f"which landed before, is now refused: {'; '.join(refused.reasons)}. Its rows stay as they were",
        fetch_id=refused.fetch_id,
        rows_before=before,
        rows_after=after,
    )


def reparse_source(
    source: SourceSpec, *, db_path: Path | str, archive: Archive, accept_shrink: bool = False
) -> ReparseResult:
    """Rebuild the source's history from its archived bodies, in one transaction. Raises ReparseRolledBack (the
    transaction rolled back) when fetches that landed before are now refused and the source would be left fewer
    current rows, unless `accept_shrink`."""
    result = ReparseResult(source.id)
    refused: RefusedFetch | None = None  # the first fetch that landed before and is refused now
    version = parser_version(source.adapter)
    kind = kind_named(source.kind)
    with connect(db_path) as con, transaction(con):
        # A past version (a backfilled price-list offer) replays at its effective date, in date order among the
        # daily fetches.
        effective = kind.past.effective(con, source.id) if kind.past is not None else {}
        # A capture another made of the page (`backfill captures`) is logged at its capture time and replays in
        # its place, read by its own reader, landing the tables it gives rows for.
        readers = capture_readers(con, source.id)
        fetches = rows_as_dicts(con, REPLAYABLE_FETCHES, {"source_id": source.id})
        fetches.sort(key=lambda row: effective.get(row["fetch_id"], row["fetched_at"]))
        result.rows_before = current_rows(con, kind.history, source.id)
        for table in kind.history.tables:
            con.execute(f"DELETE FROM {table} WHERE source_id = $source_id", {"source_id": source.id})
        if kind.history.facts_forget:  # else the replay finds every fact present and logs its first fetch unchanged
            con.execute(kind.history.facts_forget, {"source_id": source.id})
        for row in fetches:
            result.fetches += 1
            fetch = FetchRecord(**{k: v for k, v in row.items() if k not in ("fetch_id", "outcome")})
            assert fetch.sha256 is not None  # REPLAYABLE_FETCHES selects archived fetches only
            # An offer file (~250 MB) is read from its archived file (zstd, or older gzip), never whole into memory.
            body = archive.verified_path(fetch.sha256) if source.adapter_info.reads_files else archive.get(fetch.sha256)
            # The state as it was before this fetch: the history rebuilt so far, the FX rates known then, the
            # shape of the fetch before it. The fetch date is the UTC date, as when it was first landed.
            state = WarehouseState(con=con, before=(row["fetch_id"], fetch.fetched_at))
            con.execute(FORGET_QUARANTINE, {"fetch_id": row["fetch_id"]})  # the replay decides afresh
            on = fetch.fetched_at.astimezone(UTC).date()
            # The Content-Type logged with the fetch: its charset decodes the body exactly as the first parse did.
            at = effective.get(row["fetch_id"])
            reader = readers.get(row["fetch_id"])
            # Each body is read as it was fetched: from its URL (a page may name it, as the source of its terms), a
            # capture by its own reader.
            read_as = source.model_copy(update={"url": fetch.url, "adapter": reader or source.adapter})
            if at is None and reader is None:
                checked = check_body(read_as, body, on, state, fetch.content_type)
            else:
                checked = check_past(read_as, prepare_body(read_as, body, on, state, fetch.content_type))
            fetch = replace(fetch, shape_fingerprint=checked.shape, warnings=tuple(checked.warnings))
            error, stage = checked.error, checked.stage
            if error is None:
                if reader is not None:
                    snapshots = stated(kind.snapshots(checked.batch))
                elif at is None or kind.past is None:
                    snapshots = kind.snapshots(checked.batch)
                else:
                    snapshots = kind.past.snapshots(checked.batch)
                used = version if reader is None else parser_version(reader)
                landed = land_in_transaction(con, fetch, row["fetch_id"], used, snapshots, at)
                result.landed += landed.outcome == "landed"
                result.unchanged += landed.outcome == "unchanged"
                continue
            result.quarantined += 1
            reasons = error.failures if isinstance(error, ValidationFailed) else [str(error)]
            if refused is None and row["outcome"] in ("landed", "unchanged"):
                refused = RefusedFetch(row["fetch_id"], fetch.fetched_at, fetch.url, error, reasons)
            con.execute(
                MARK_QUARANTINED, {"parser_version": version, "error": "; ".join(reasons), "fetch_id": row["fetch_id"]}
            )
            con.execute(
                INSERT_QUARANTINE,
                {
                    "source_id": source.id,
                    "fetch_id": row["fetch_id"],
                    "url": fetch.url,
                    "fetched_at": fetch.fetched_at,
                    "sha256": fetch.sha256,
                    "parser_version": version,
                    "stage": stage,
                    "reasons": reasons,
                    "raw_body": body if isinstance(body, bytes) else b"",  # a file's body stays in the archive
                },
            )
        result.rows_after = current_rows(con, kind.history, source.id)
        if refused is not None and result.rows_after < result.rows_before and not accept_shrink:
            # Raised inside the transaction: the rebuild, its fetch_log and quarantine rows, all roll back.
            raise rolled_back(source.id, refused, result.rows_before, result.rows_after) from refused.error
    return result
