"""Named read queries every kind shares: the source's last shape, the freshness of every source, and helpers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import duckdb

from warehouse.binding import bound, execute

if TYPE_CHECKING:
    import pyarrow as pa

# The source's last shape, for the drift rules (each kind's open rows: its History, pipelines.kind).
# `before`: reparse replays old fetches and must compare each with the fetch before it, not the newest.
# The page's own last shape: a capture another made of it (capture_log) is read in its own shape.
LAST_SHAPE = """
SELECT shape_fingerprint FROM fetch_log
WHERE source_id = $source_id AND outcome IN ('landed', 'unchanged') AND shape_fingerprint IS NOT NULL
  AND fetch_id < $before AND fetch_id NOT IN (SELECT fetch_id FROM capture_log)
ORDER BY fetch_id DESC LIMIT 1
"""

# Each source's newest landing by the time it speaks for: its body, its parser, and whether it was a capture another
# made of the page (pipelines.refresh.one_source.LastLandings). One query for every source of a refresh.
LAST_LANDINGS = """
SELECT source_id, arg_max([sha256, parser_version, CAST(fetch_id IN (SELECT fetch_id FROM capture_log) AS VARCHAR)],
                          (fetched_at, fetch_id))
FROM fetch_log WHERE outcome IN ('landed', 'unchanged') AND list_contains($source_ids, source_id)
GROUP BY source_id
"""

# Whether the source's newest landing (by the time it speaks for) is a capture another made of the page: its rows
# are then no baseline for the page's own drift rules, which watch this parser on this page.
NEWEST_IS_CAPTURE = """
SELECT coalesce(arg_max(fetch_id IN (SELECT fetch_id FROM capture_log), (fetched_at, fetch_id)), false)
FROM fetch_log
WHERE source_id = $source_id AND outcome IN ('landed', 'unchanged') AND fetched_at < $before_at
"""


SOURCE_FRESHNESS = """
SELECT source_id, last_outcome,
       strftime(last_good_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S UTC') AS last_good_at,
       strftime(last_attempt_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S UTC') AS last_attempt_at,
       last_error
FROM source_freshness ORDER BY source_id
"""


def rows_as_dicts(
    con: duckdb.DuckDBPyConnection, query: str, params: Mapping[str, object] | None = None
) -> list[dict[str, Any]]:
    cursor = execute(con, query, params or {})
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def arrow_table(con: duckdb.DuckDBPyConnection, query: str, params: Mapping[str, object] | None = None) -> pa.Table:
    """A query's rows as an Arrow table: DECIMALs stay decimal128 (exact), for files and for `to_pylist`."""
    return con.sql(query, params=bound(params or {})).to_arrow_table()


def one_row(con: duckdb.DuckDBPyConnection, query: str, params: Mapping[str, object] | None = None) -> tuple[Any, ...]:
    """The single row of a query that always returns one (an aggregate, INSERT ... RETURNING)."""
    row = execute(con, query, params or {}).fetchone()
    if row is None:  # DuckDB types fetchone() as optional; for these queries no row is a bug, not data
        raise LookupError(f"query returned no row: {query.strip().splitlines()[0]}")
    return row


def last_fetch_id(con: duckdb.DuckDBPyConnection) -> int:
    """The mark a run starts from: rows logged by the run have greater fetch ids (one writer at a time)."""
    row = con.execute("SELECT coalesce(max(fetch_id), 0) FROM fetch_log").fetchone()
    return int(row[0]) if row else 0
