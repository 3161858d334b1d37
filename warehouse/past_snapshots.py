"""Type-2 history written out of order: a snapshot that was true from a past instant, put in its place.

A daily landing (warehouse.versioning.land_snapshot) always observes "now", after every version already held.
A backfilled offer version was in effect from a date that may lie before rows landed already, so it is woven
into the scope's timeline instead:
- from `at` until the timeline's next change or observation after `at` (`next_change`), the scope holds what the
  snapshot says. Rows show only changes, so the caller names the next instant a landing observed the scope
  (`next_observed`): a later snapshot that changed nothing left no row boundary, yet it bounds this one;
- a version the snapshot ends at `at` resumes at `next_change` if the timeline had it open past that point;
- from `next_change` on, nothing changes: what later landings observed stays authoritative;
- finally, versions of one key that meet end to end with equal attributes become one row, keeping the first
  one's lineage (the earliest evidence), so a price unchanged across many versions is one row.
Every step is one statement over the scope's rows in DuckDB. Landing the same snapshot at the same instant
again changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa

from warehouse.binding import execute
from warehouse.queries import one_row
from warehouse.versioning import (
    LandCounts,
    VersionedTable,
    attributes_hash_sql,
    close_diffed_rows,
    same_version,
    scope_filter,
)

PAST_DIFF = "temp.main._past_landing_diff"
RUNS = "temp.main._past_landing_runs"


def land_snapshot_at(
    con: duckdb.DuckDBPyConnection,
    table: VersionedTable,
    snapshot: pa.Table,
    source_id: str,
    at: datetime,
    scope: Mapping[str, Any] | None = None,
    next_observed: datetime | None = None,
) -> LandCounts:
    """Weave a snapshot true from `at` into the timeline of (source, scope). The caller owns the transaction."""
    where, params = scope_filter(table, scope or {})
    params |= {"source_id": source_id, "at": at}
    rows = f"(SELECT rowid AS row_id, * FROM {table.name} WHERE source_id = $source_id{where})"
    (next_change,) = one_row(
        con,
        f"""SELECT least(min(valid_from) FILTER (WHERE valid_from > $at),
                         min(valid_to) FILTER (WHERE valid_to > $at), $observed) FROM {rows}""",
        params | {"observed": next_observed},
    )
    open_at = f"(SELECT * FROM {rows} WHERE valid_from <= $at AND (valid_to IS NULL OR valid_to > $at))"
    con.register("_past_snapshot", snapshot)
    execute(
        con,
        f"""CREATE OR REPLACE TEMP TABLE {PAST_DIFF} AS
            SELECT h.row_id AS closes_row, h.valid_to AS closed_until, s.*
            FROM {open_at} AS h FULL JOIN _past_snapshot AS s ON {same_version(table)}
            WHERE h.row_id IS NULL OR s.source_id IS NULL""",
        params,
    )
    con.unregister("_past_snapshot")
    params["next"] = next_change
    resumed = _resume_after(con, table, params)
    closed = close_diffed_rows(con, table, PAST_DIFF, at)
    (inserted,) = one_row(
        con,
        f"""INSERT INTO {table.name} BY NAME
            SELECT s.* EXCLUDE (closes_row, closed_until), CAST($next AS TIMESTAMPTZ) AS valid_to,
                   {attributes_hash_sql("s", table.attribute_columns)} AS attributes_hash
            FROM {PAST_DIFF} AS s WHERE s.closes_row IS NULL""",
        {"next": next_change},
    )
    con.execute(f"DROP TABLE {PAST_DIFF}")
    # A version closed at the instant it opened (the snapshot replaced it at `at` itself) never held.
    scoped = {k: v for k, v in params.items() if k not in ("at", "next")}
    execute(con, f"DELETE FROM {table.name} WHERE source_id = $source_id{where} AND valid_to <= valid_from", scoped)
    merged = merge_touching_versions(con, table, source_id, scope or {})
    return LandCounts(inserted=inserted + resumed - merged, closed=closed, unchanged=snapshot.num_rows - inserted)


def _resume_after(con: duckdb.DuckDBPyConnection, table: VersionedTable, params: dict[str, Any]) -> int:
    """A version the snapshot ends at `at`, open past the next change, carries on from there: copied, with its
    own lineage, to start at the next change (before the original is closed at `at`)."""
    if params["next"] is None:
        return 0
    (copied,) = one_row(
        con,
        f"""INSERT INTO {table.name} BY NAME
            SELECT * REPLACE (CAST($next AS TIMESTAMPTZ) AS valid_from) FROM {table.name}
            WHERE rowid IN (SELECT closes_row FROM {PAST_DIFF}
                            WHERE closes_row IS NOT NULL AND (closed_until IS NULL OR closed_until > $next))""",
        {"next": params["next"]},
    )
    return int(copied)


def merge_touching_versions(
    con: duckdb.DuckDBPyConnection, table: VersionedTable, source_id: str, scope: Mapping[str, Any]
) -> int:
    """Versions of one key that meet end to end with equal attributes become the first of them, stretched to the
    last one's end; returns how many rows were folded away."""
    where, params = scope_filter(table, scope)
    params["source_id"] = source_id
    keys = ", ".join(table.key_columns)
    # A run starts wherever a version does not continue the one before it (a gap, or other attributes).
    execute(
        con,
        f"""CREATE OR REPLACE TEMP TABLE {RUNS} AS
            WITH ordered AS (
                SELECT rowid AS row_id, valid_from, valid_to, {keys},
                       CASE WHEN lag(valid_to) OVER w = valid_from
                             AND lag(attributes_hash) OVER w = attributes_hash THEN 0 ELSE 1 END AS starts_run
                FROM {table.name} WHERE source_id = $source_id{where}
                WINDOW w AS (PARTITION BY {keys} ORDER BY valid_from)
            ), numbered AS (
                SELECT *, sum(starts_run) OVER (PARTITION BY {keys} ORDER BY valid_from) AS run FROM ordered
            )
            SELECT row_id, valid_to,
                   first_value(row_id) OVER (PARTITION BY {keys}, run ORDER BY valid_from) AS first_row
            FROM numbered""",
        params,
    )
    one_row(
        con,
        f"""UPDATE {table.name} AS t SET valid_to = r.run_to
            FROM (SELECT first_row, CASE WHEN bool_or(valid_to IS NULL) THEN NULL ELSE max(valid_to) END AS run_to
                  FROM {RUNS} GROUP BY first_row HAVING count(*) > 1) AS r
            WHERE t.rowid = r.first_row""",
    )
    (folded,) = one_row(
        con, f"DELETE FROM {table.name} WHERE rowid IN (SELECT row_id FROM {RUNS} WHERE row_id <> first_row)"
    )
    con.execute(f"DROP TABLE {RUNS}")
    return int(folded)
