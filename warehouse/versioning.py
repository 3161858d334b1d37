"""Generic type-2 history: land a source's full snapshot against its open versions, in bulk through Arrow.

A snapshot is everything one fetch of one source says. Against the source's open rows:
- same business key, same attributes  -> nothing is written (an unchanged refresh adds no rows);
- same key, different attributes      -> the open row is closed at `observed_at` and a new one opened;
- key absent from the snapshot        -> the open row is closed;
- new key                             -> a row is opened.
Keys compare NULL-safely (a price with no region stated is a key like any other).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

import duckdb
import pyarrow as pa

from warehouse.queries import one_row

LINEAGE_FIELDS = [
    pa.field("fetch_id", pa.int64()),
    pa.field("source_url", pa.string()),
    pa.field("fetched_at", pa.timestamp("us", tz="UTC")),
    pa.field("sha256", pa.string()),
    pa.field("parser_version", pa.string()),
]


@dataclass(frozen=True)
class VersionedTable:
    name: str
    key_columns: tuple[str, ...]  # business key within one source
    attribute_fields: tuple[pa.Field, ...]  # everything compared to decide "changed"

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


def _canonical(value: Any) -> Any:
    # 21.50 and 21.5 are the same price: normalise so a reparse does not invent a version.
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return value


def attributes_hash(row: dict[str, Any], columns: tuple[str, ...]) -> str:
    payload = json.dumps([_canonical(row[c]) for c in columns], default=str, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


def snapshot_table(table: VersionedTable, rows: list[dict[str, Any]], source_id: str, lineage: Lineage) -> pa.Table:
    """Rows plus hash, validity start and lineage, typed by the table's Arrow schema (Decimals stay exact)."""
    n = len(rows)
    columns: dict[str, pa.Array] = {"source_id": pa.array([source_id] * n, pa.string())}
    for field in table.attribute_fields:
        columns[field.name] = pa.array([r[field.name] for r in rows], field.type)
    columns["attributes_hash"] = pa.array([attributes_hash(r, table.attribute_columns) for r in rows], pa.string())
    columns["valid_from"] = pa.array([lineage.fetched_at] * n, pa.timestamp("us", tz="UTC"))
    for field in LINEAGE_FIELDS:
        columns[field.name] = pa.array([getattr(lineage, field.name)] * n, field.type)
    return pa.table(columns)


def _key_match(left: str, right: str, keys: tuple[str, ...]) -> str:
    return " AND ".join(f"{left}.{k} IS NOT DISTINCT FROM {right}.{k}" for k in keys)


def land_snapshot(
    con: duckdb.DuckDBPyConnection, table: VersionedTable, snapshot: pa.Table, source_id: str, observed_at: datetime
) -> LandCounts:
    """Apply one snapshot. The caller owns the transaction, so several tables land atomically."""
    # Registered, not copied: DuckDB scans the Arrow table in place. Re-registering replaces it, so a failed
    # landing (whose transaction the caller rolls back) needs no cleanup here.
    con.register("_snapshot", snapshot)
    key = ("source_id", *table.key_columns)
    same_version = f"{_key_match('s', 'h', key)} AND s.attributes_hash = h.attributes_hash"
    (closed,) = one_row(
        con,
        f"""UPDATE {table.name} AS h SET valid_to = $observed_at
            WHERE h.source_id = $source_id AND h.valid_to IS NULL
              AND NOT EXISTS (SELECT 1 FROM _snapshot AS s WHERE {same_version})""",
        {"observed_at": observed_at, "source_id": source_id},
    )
    (inserted,) = one_row(
        con,
        f"""INSERT INTO {table.name} BY NAME
            SELECT * FROM _snapshot AS s
            WHERE NOT EXISTS (SELECT 1 FROM {table.name} AS h
                              WHERE h.source_id = $source_id AND h.valid_to IS NULL AND {same_version})""",
        {"source_id": source_id},
    )
    con.unregister("_snapshot")
    return LandCounts(inserted=inserted, closed=closed, unchanged=snapshot.num_rows - inserted)


def rehash(con: duckdb.DuckDBPyConnection, table: VersionedTable) -> int:
    """Recompute stored attribute hashes from the stored attributes; returns how many changed.

    Run after an attribute column is added (and backfilled): rows hashed without it would otherwise all look
    changed at the next fetch and be re-versioned with identical figures.
    """
    result = con.execute(f"SELECT rowid AS row_id, * FROM {table.name}")
    names = [d[0] for d in result.description]
    rows = [dict(zip(names, values, strict=True)) for values in result.fetchall()]
    hashes = pa.table(
        {
            "row_id": pa.array([r["row_id"] for r in rows], pa.int64()),
            "attributes_hash": pa.array([attributes_hash(r, table.attribute_columns) for r in rows], pa.string()),
        }
    )
    con.register("_rehashed", hashes)
    (changed,) = one_row(
        con,
        f"""UPDATE {table.name} AS h SET attributes_hash = r.attributes_hash FROM _rehashed AS r
            WHERE h.rowid = r.row_id AND h.attributes_hash <> r.attributes_hash""",
    )
    con.unregister("_rehashed")
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
    n = len(rows)
    columns = {f.name: pa.array([r[f.name] for r in rows], f.type) for f in table.fields}
    for field in LINEAGE_FIELDS:
        columns[field.name] = pa.array([getattr(lineage, field.name)] * n, field.type)
    con.register("_new_rows", pa.table(columns))
    match = " AND ".join(f"t.{k} = n.{k}" for k in table.key_columns)  # same key
    same_version = " AND ".join([match] + [f"t.{k} IS NOT DISTINCT FROM n.{k}" for k in table.value_columns])
    (closed,) = one_row(
        con,
        f"""UPDATE {table.name} AS t SET valid_to = $observed_at
            WHERE t.valid_to IS NULL AND EXISTS (SELECT 1 FROM _new_rows AS n WHERE {match})
              AND NOT EXISTS (SELECT 1 FROM _new_rows AS n WHERE {same_version})""",
        {"observed_at": lineage.fetched_at},
    )
    (inserted,) = one_row(
        con,
        f"""INSERT INTO {table.name} BY NAME
            SELECT * FROM _new_rows AS n
            WHERE NOT EXISTS (SELECT 1 FROM {table.name} AS t WHERE t.valid_to IS NULL AND {same_version})""",
    )
    con.unregister("_new_rows")
    return LandCounts(inserted=inserted, closed=closed, unchanged=n - inserted)
