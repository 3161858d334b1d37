"""Generic type-2 history: land a source's full snapshot against its open versions, in bulk through Arrow.

A snapshot is everything one fetch of one source says. Against the source's open rows:
- same business key, same attributes  -> nothing is written (an unchanged refresh adds no rows);
- same key, different attributes      -> the open row is closed at `observed_at` and a new one opened;
- key absent from the snapshot        -> the open row is closed;
- new key                             -> a row is opened.
Keys and attributes compare NULL-safely and column by column in DuckDB, so DECIMALs compare exactly and no
per-row Python work stands between a 100k-row snapshot and the warehouse. `attributes_hash` is kept for readers
(one value that changes when a version's attributes do); DuckDB computes it, for inserted rows only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa

from warehouse.binding import execute
from warehouse.queries import one_row

LINEAGE_FIELDS = [
    pa.field("fetch_id", pa.int64()),
    pa.field("source_url", pa.string()),
    pa.field("fetched_at", pa.timestamp("us", tz="UTC")),
    pa.field("sha256", pa.string()),
    pa.field("parser_version", pa.string()),
]


DIFF = "temp.main._landing_diff"  # one landing's changes; a temp table, so each connection has its own


@dataclass(frozen=True)
class VersionedTable:
    name: str
    key_columns: tuple[str, ...]  # business key within one source
    attribute_fields: tuple[pa.Field, ...]  # everything compared to decide "changed"
    # Stored with each new version but never compared (an offer file's version stamp changes every month while
    # its prices mostly do not): what the fetch that opened the version said.
    carried_fields: tuple[pa.Field, ...] = ()
    # Columns that, with source_id, bound what one snapshot replaces: a price-list source lands one region at a
    # time, so landing us-east-1 must not close us-west-2's rows. Empty: the snapshot is the whole source.
    scope_columns: tuple[str, ...] = ()

    @property
    def attribute_columns(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.attribute_fields)


@dataclass(frozen=True)
class Lineage:
    fetch_id: int
    source_url: str
    fetched_at: datetime
    sha256: str
    parser_version: str


@dataclass(frozen=True)
class LandCounts:
    inserted: int
    closed: int
    unchanged: int


def attributes_hash_sql(alias: str, columns: tuple[str, ...]) -> str:
    """SHA-256 of the attributes as DuckDB's JSON text of a struct: typed values (DECIMAL at its column's scale,
    so 21.50 and 21.5 are one text), NULL as null, strings escaped, so no two different rows share the text."""
    fields = ", ".join(f"'{c}': {alias}.{c}" for c in columns)
    return f"sha256(to_json({{{fields}}}))"


def snapshot_table(
    table: VersionedTable,
    rows: list[dict[str, Any]],
    source_id: str,
    lineage: Lineage,
    valid_from: datetime | None = None,
) -> pa.Table:
    """Rows plus validity start (the fetch time, or `valid_from`: a backfilled version's effective date) and
    lineage, typed by the table's Arrow schema (Decimals stay exact)."""
    n = len(rows)
    columns: dict[str, pa.Array] = {"source_id": pa.repeat(pa.scalar(source_id, pa.string()), n)}
    for field in (*table.attribute_fields, *table.carried_fields):
        columns[field.name] = pa.array([r[field.name] for r in rows], field.type)
    return with_lineage(pa.table(columns), lineage, valid_from)


def with_lineage(table: pa.Table, lineage: Lineage, valid_from: datetime | None = None) -> pa.Table:
    """Validity start (the fetch time unless given) and lineage columns appended: one value for every row."""
    n = table.num_rows
    start = pa.scalar(valid_from or lineage.fetched_at, pa.timestamp("us", tz="UTC"))
    table = table.append_column("valid_from", pa.repeat(start, n))
    for field in LINEAGE_FIELDS:
        table = table.append_column(field.name, pa.repeat(pa.scalar(getattr(lineage, field.name), field.type), n))
    return table


def same_version(table: VersionedTable) -> str:
    """s and h are the same version: same source and key, NULL-safely, and equal attributes. The attributes compare
    as one row value (NULL fields equal, DECIMALs exactly): as exact as a comparison per column and much quicker to
    plan, which is most of the cost of landing a small snapshot."""
    keys = " AND ".join(f"s.{k} IS NOT DISTINCT FROM h.{k}" for k in ("source_id", *table.key_columns))
    attributes = [", ".join(f"{alias}.{c}" for c in table.attribute_columns) for alias in ("s", "h")]
    return f"{keys} AND ({attributes[0]}) IS NOT DISTINCT FROM ({attributes[1]})"


def scope_filter(table: VersionedTable, scope: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """SQL limiting the open rows to the snapshot's scope, and its parameters."""
    if set(scope) != set(table.scope_columns):
        raise ValueError(f"{table.name}: a snapshot's scope must give {table.scope_columns}, not {tuple(scope)}")
    sql = "".join(f" AND {k} IS NOT DISTINCT FROM $scope_{k}" for k in table.scope_columns)
    return sql, {f"scope_{k}": scope[k] for k in table.scope_columns}


def within_filter(table: VersionedTable, within: Mapping[str, list[Any]]) -> tuple[str, dict[str, Any]]:
    """SQL limiting the open rows to the values a snapshot covers (Snapshot.within), and its parameters."""
    unknown = set(within) - set(table.key_columns)
    if unknown:
        raise ValueError(f"{table.name}: a snapshot covers values of its key columns only, not {sorted(unknown)}")
    sql = "".join(f" AND list_contains($within_{k}, {k})" for k in within)
    return sql, {f"within_{k}": list(values) for k, values in within.items()}


def land_snapshot(
    con: duckdb.DuckDBPyConnection,
    table: VersionedTable,
    snapshot: pa.Table,
    source_id: str,
    observed_at: datetime,
    scope: Mapping[str, Any] | None = None,
    kept: list[dict[str, Any]] | None = None,
    within: Mapping[str, list[Any]] | None = None,
) -> LandCounts:
    """Apply one snapshot (of the whole source, or of its `scope` within the source, e.g. one region). The open
    rows of the `kept` keys (rows refused this time) stay open though the snapshot lacks them, and so do those
    outside `within` (column -> the values the snapshot covers). The caller owns the transaction, so several
    tables land atomically."""
    scope_where, scope_params = scope_filter(table, scope or {})
    within_where, within_params = within_filter(table, within or {})
    scope_where, scope_params = scope_where + within_where, scope_params | within_params
    # Registered, not copied: DuckDB scans the Arrow table in place. Re-registering replaces it, so a failed
    # landing (whose transaction the caller rolls back, temp table included) needs no cleanup here.
    con.register("_snapshot", snapshot)
    open_rows = (
        f"(SELECT rowid AS row_id, * FROM {table.name} WHERE source_id = $source_id AND valid_to IS NULL{scope_where})"
    )
    # One pass over the history finds both sides of the change: a full join of the open rows with the snapshot
    # on "same version" leaves unmatched open rows (to close: s.source_id, never NULL in a snapshot, is NULL)
    # and unmatched snapshot rows (to insert: row_id is NULL). Two anti-joins read the open rows twice, and on a
    # 10M-row history that scan is most of a landing's cost.
    matches = same_version(table)
    execute(
        con,
        f"""CREATE OR REPLACE TEMP TABLE {DIFF} AS
            SELECT h.row_id AS closes_row, s.* FROM {open_rows} AS h FULL JOIN _snapshot AS s ON {matches}
            WHERE h.row_id IS NULL OR s.source_id IS NULL""",
        {"source_id": source_id, **scope_params},
    )
    con.unregister("_snapshot")
    if kept:
        _keep_open(con, table, kept, source_id)
    # The diff is a local temp table, so counting it is nearly free; a statement on the history that would change
    # nothing is skipped (on a lake each one costs tens of milliseconds, and an unchanged refresh needs none).
    to_close, to_insert = one_row(con, f"SELECT count(closes_row), count(*) - count(closes_row) FROM {DIFF}")
    closed = close_diffed_rows(con, table, DIFF, observed_at) if to_close else 0
    inserted = 0
    if to_insert:
        (inserted,) = one_row(
            con,
            f"""INSERT INTO {table.name} BY NAME
                SELECT s.* EXCLUDE (closes_row), {attributes_hash_sql("s", table.attribute_columns)} AS attributes_hash
                FROM {DIFF} AS s WHERE s.closes_row IS NULL""",
        )
    con.execute(f"DROP TABLE {DIFF}")
    return LandCounts(inserted=inserted, closed=closed, unchanged=snapshot.num_rows - inserted)


def _keep_open(
    con: duckdb.DuckDBPyConnection, table: VersionedTable, kept: list[dict[str, Any]], source_id: str
) -> None:
    """Strike from the diff the closing of open rows whose business key is in `kept`."""
    types = {f.name: f.type for f in table.attribute_fields}
    con.register("_kept", pa.table({k: pa.array([row[k] for row in kept], types[k]) for k in table.key_columns}))
    keys = " AND ".join(f"_kept.{k} IS NOT DISTINCT FROM h.{k}" for k in table.key_columns)
    execute(
        con,
        f"""DELETE FROM {DIFF} WHERE closes_row IN (
                SELECT h.rowid FROM {table.name} AS h JOIN _kept ON {keys}
                WHERE h.source_id = $source_id AND h.valid_to IS NULL)""",
        {"source_id": source_id},
    )
    con.unregister("_kept")


def close_diffed_rows(con: duckdb.DuckDBPyConnection, table: VersionedTable, diff: str, at: datetime) -> int:
    """Close, at `at`, the open rows a landing's diff table names (its `closes_row`); returns how many."""
    (closed,) = one_row(
        con,
        f"""UPDATE {table.name} SET valid_to = $at
            WHERE rowid IN (SELECT closes_row FROM {diff} WHERE closes_row IS NOT NULL)""",
        {"at": at},
    )
    return int(closed)


def rehash(con: duckdb.DuckDBPyConnection, table: VersionedTable) -> int:
    """Recompute stored attribute hashes from the stored attributes, in DuckDB; returns how many changed.

    Run on upgrade: after an attribute column is added (and backfilled), and once for files whose hashes the
    previous release computed in Python, so the column means the same thing on every row.
    """
    fresh = attributes_hash_sql(table.name, table.attribute_columns)
    (changed,) = one_row(
        con,
        f"""UPDATE {table.name} SET attributes_hash = {fresh}
            WHERE attributes_hash IS DISTINCT FROM {fresh}""",
    )
    return int(changed)


@dataclass(frozen=True)
class FactTable:
    """Facts by key that a later snapshot adds to or corrects but never removes (an FX rate for a date).

    A new key is added; the same value again adds nothing; a different value for a present key is a correction:
    the current row is closed (valid_to = the correcting fetch's time) and the new one added, so history keeps
    both, `valid_to IS NULL` is the current value, and `fetched_at <= t < valid_to` what was known at t.
    """

    name: str
    key_columns: tuple[str, ...]
    fields: tuple[pa.Field, ...]

    @property
    def value_columns(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.name not in self.key_columns)


def land_facts(
    con: duckdb.DuckDBPyConnection, table: FactTable, rows: list[dict[str, Any]], lineage: Lineage
) -> LandCounts:
    """Add new keys, correct changed values (close the open row, add the new one); the same value adds nothing."""
    _refuse_repeated_keys(table, rows)
    n = len(rows)
    columns = {f.name: pa.array([r[f.name] for r in rows], f.type) for f in table.fields}
    for field in LINEAGE_FIELDS:
        columns[field.name] = pa.repeat(pa.scalar(getattr(lineage, field.name), field.type), n)
    con.register("_new_rows", pa.table(columns))
    # Keys are unique in the snapshot, so "an open row whose key comes with another value" is one join, and the
    # values compare as one row value (NULL-safely): two statements, each scanning the new rows once. EXISTS
    # subqueries said the same, but DuckDB 1.5.5 took about 7 ms more a landing to plan and run them.
    match = " AND ".join(f"t.{k} = n.{k}" for k in table.key_columns)
    attributes = [", ".join(f"{alias}.{c}" for c in table.value_columns) for alias in ("t", "n")]
    (closed,) = one_row(
        con,
        f"""UPDATE {table.name} AS t SET valid_to = $observed_at FROM _new_rows AS n
            WHERE t.valid_to IS NULL AND {match} AND ({attributes[0]}) IS DISTINCT FROM ({attributes[1]})""",
        {"observed_at": lineage.fetched_at},
    )
    (inserted,) = one_row(
        con,
        f"""INSERT INTO {table.name} BY NAME
            SELECT n.* FROM _new_rows AS n
            ANTI JOIN (SELECT * FROM {table.name} WHERE valid_to IS NULL) AS t
                   ON {match} AND ({attributes[0]}) IS NOT DISTINCT FROM ({attributes[1]})""",
    )
    con.unregister("_new_rows")
    return LandCounts(inserted=inserted, closed=closed, unchanged=n - inserted)


def _refuse_repeated_keys(table: FactTable, rows: list[dict[str, Any]]) -> None:
    """Two values for one key in one snapshot would leave two open rows for it: refused before anything is written."""
    counts = Counter(tuple(r[k] for k in table.key_columns) for r in rows)
    repeated = sorted((key for key, n in counts.items() if n > 1), key=str)[:3]
    if repeated:
        raise ValueError(f"{table.name}: a snapshot gives one value per key {table.key_columns}; repeated: {repeated}")
