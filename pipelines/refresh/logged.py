"""A run's outcomes as fetch_log has them: the report of a stopped refresh is made whole from the log.

A stop can arrive between a source's commit and the moment its outcome reaches the caller's list (or while the
warehouse closes after the last landing): the source has landed, but the list does not know it. fetch_log is
written in the same transaction as the landing, so it is the truth: every row logged after the run's mark
(warehouse.queries.last_fetch_id) that the outcomes lack is added, from its row.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from pipelines.errors import SourceError
from pipelines.refresh.one_source import SourceOutcome
from warehouse.binding import execute
from warehouse.db import connect
from warehouse.quoting import literal
from warehouse.stops_deferred import stops_deferred
from warehouse.target import is_lake


class LoggedFailure(SourceError):
    """A failure known only from its fetch_log row: its text as it was logged."""

    stage = "logged"

    def __init__(self, source_id: str, text: str):
        Exception.__init__(self, text)
        self.source_id = source_id
        self.message = text


def logged_since(con: duckdb.DuckDBPyConnection, mark: int) -> list[SourceOutcome]:
    """Every fetch_log row after `mark`, as an outcome, in the order logged."""
    rows = execute(
        con,
        """SELECT source_id, outcome, url, fetch_id, sha256, fetched_at, rows_inserted, rows_closed, error
           FROM fetch_log WHERE fetch_id > ? ORDER BY fetch_id""",
        [mark],
    ).fetchall()
    return [
        SourceOutcome(
            source_id,
            status,
            url,
            fetch_id=fetch_id,
            sha256=sha256,
            fetched_at=fetched_at,
            inserted=inserted,
            closed=closed,
            error=LoggedFailure(source_id, error) if status in ("quarantined", "fetch_failed") else None,
        )
        for source_id, status, url, fetch_id, sha256, fetched_at, inserted, closed, error in rows
    ]


class LogUnreadable(Exception):
    """fetch_log could not be read back after a stop: the report says so and gives the outcomes it had."""


def logged_in(db_path: Path | str, mark: int) -> list[SourceOutcome]:
    """logged_since, on a connection of its own (the run's own has closed, or was lost to the stop).

    A file is attached read-only to an in-memory database, never opened through DuckDB's instance cache: if the
    stopped work left the file's instance alive in this process, opening it again would spin forever in that cache,
    while an attach fails at once with a path conflict (LogUnreadable). A file that is not there, or holds no
    fetch_log yet, logged nothing."""
    if is_lake(db_path):
        with connect(db_path) as con:
            return logged_since(con, mark)
    path = Path(db_path)
    if not path.exists():
        return []
    with stops_deferred():  # as connect() opens and closes a file: a stop waits until the connection is made
        con = duckdb.connect()
    try:
        con.execute(f"ATTACH {literal(str(path))} AS logged (READ_ONLY)")
        con.execute("USE logged")
        if not con.execute("SELECT table_name FROM duckdb_tables() WHERE table_name = 'fetch_log'").fetchall():
            return []
        return logged_since(con, mark)
    except duckdb.Error as exc:
        raise LogUnreadable(f"fetch_log could not be read back ({exc})") from exc
    finally:
        with stops_deferred():
            con.close()


def made_whole(outcomes: list[SourceOutcome], logged: list[SourceOutcome]) -> list[SourceOutcome]:
    """`outcomes`, plus each logged row none of them stands for (matched by fetch id), with a warning saying so."""
    known = {o.fetch_id for o in outcomes if o.fetch_id is not None}
    missing = [o for o in logged if o.fetch_id not in known]
    for outcome in missing:
        outcome.warnings.append("logged as the stop arrived: reported from fetch_log")
    return outcomes + missing
