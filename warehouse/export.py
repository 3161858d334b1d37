"""Exports for BI tools: every public view, and the history tables partitioned by fetch date, through DuckDB COPY.

Read from the published snapshot (read-only), so an export never waits on or blocks a refresh. Parquet keeps
DECIMAL money and TIMESTAMPTZ exact; CSV is for tools that read nothing else. `manifest.json` describes each
file (schema, row count, the COMMENT ON text) and the snapshot it came from.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import duckdb

from warehouse.db import connect
from warehouse.export_targets import MANIFEST, BucketPrefix, ExportTarget, target_of
from warehouse.lake import httpfs_extension
from warehouse.object_store import reach
from warehouse.queries import one_row, rows_as_dicts
from warehouse.quoting import ident, literal
from warehouse.target import is_lake

Format = Literal["parquet", "csv"]
PARTITION_COLUMN = "fetch_date"
PUBLIC_VIEWS = """
SELECT view_name AS name, comment FROM duckdb_views()
WHERE NOT internal AND schema_name = 'main' AND database_name = current_database()
"""
# Versioned tables: every row has a validity end and the fetch that produced it.
HISTORY_TABLES = """
SELECT table_name AS name, comment FROM duckdb_tables() t
WHERE schema_name = 'main' AND database_name = current_database()
  AND (SELECT count(*) FROM duckdb_columns() c
       WHERE c.table_name = t.table_name AND c.column_name IN ('valid_to', 'fetched_at')) = 2
"""
# Each relation's columns, with the column's comment from the catalog, else from catalog_comments (a DuckLake keeps
# none on view columns). Read once for every relation: on a lake each catalog query costs tens of milliseconds.
COLUMNS = """
SELECT c.table_name AS relation, c.column_name AS name, c.data_type AS type, coalesce(c.comment, k.comment) AS comment
FROM duckdb_columns() c
LEFT JOIN catalog_comments k ON k.object_kind = 'column' AND k.object_name = c.table_name
                             AND k.column_name = c.column_name
WHERE c.schema_name = 'main' AND c.database_name = current_database()
ORDER BY c.table_name, c.column_index
"""


def columns_by_relation(con: duckdb.DuckDBPyConnection) -> dict[str, list[dict[str, Any]]]:
    """Every table's and view's columns (name, type, comment) in their order, keyed by the relation's name."""
    found: dict[str, list[dict[str, Any]]] = {}
    for column in rows_as_dicts(con, COLUMNS):
        found.setdefault(column.pop("relation"), []).append(column)
    return found


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def snapshot_info(con: duckdb.DuckDBPyConnection, path: Path | str) -> dict[str, Any]:
    """Which published version the files come from: its file hash, publish time and the last fetch it holds
    (a lake: its snapshot id and commit time instead of a file hash)."""
    (through,) = one_row(con, "SELECT max(fetch_id) FROM fetch_log")
    (schema,) = one_row(con, "SELECT max(sql_sha256) FROM schema_version")
    if is_lake(path):
        snapshot, at = one_row(con, "SELECT snapshot_id, snapshot_time FROM lake.snapshots() ORDER BY 1 DESC LIMIT 1")
        return {
            "path": str(path),
            "publish_id": f"fetch-{through}",
            "published_at": at.astimezone(UTC).isoformat(),
            "lake_snapshot_id": snapshot,
            "through_fetch_id": through,
            "schema_sha256": schema,
        }
    path = Path(path)
    return {
        "path": str(path),
        "publish_id": f"fetch-{through}",
        "published_at": datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(),
        "sha256": file_sha256(path),
        "through_fetch_id": through,
        "schema_sha256": schema,
    }


def copy_options(fmt: Format, partitioned: bool) -> str:
    options = ["FORMAT parquet, COMPRESSION zstd" if fmt == "parquet" else "FORMAT csv, HEADER true"]
    if partitioned:
        options.append(f"PARTITION_BY ({PARTITION_COLUMN}), OVERWRITE_OR_IGNORE true")
    return ", ".join(options)


def export_one(
    con: duckdb.DuckDBPyConnection,
    name: str,
    comment: str | None,
    out: Path | ExportTarget,
    fmt: Format,
    partitioned: bool,
    columns: list[dict[str, Any]],
) -> dict[str, Any]:
    """One COPY per view or table (bulk, never row by row) and its manifest entry; `columns` as
    columns_by_relation gives them. The row count is the one COPY reports: counting again would run a view twice."""
    place = target_of(out) if isinstance(out, Path) else out
    relation = ident(name)
    if partitioned:  # hive-style folders: <table>/fetch_date=YYYY-MM-DD/data_0.parquet
        relation = f"(SELECT *, CAST(timezone('UTC', fetched_at) AS DATE) AS fetch_date FROM {ident(name)})"
    target = place.path(name if partitioned else f"{name}.{fmt}")
    place.clear(target)
    (rows,) = one_row(con, f"COPY {relation} TO {literal(target)} ({copy_options(fmt, partitioned)})")
    entry: dict[str, Any] = {
        "name": name,
        "kind": "history table" if partitioned else "view",
        "path": place.relative(target),
        "format": fmt,
        "rows": rows,
        "comment": comment,
        "columns": columns,
    }
    if partitioned:
        entry["partitioned_by"] = {"column": PARTITION_COLUMN, "type": "DATE", "derived_from": "fetched_at (UTC date)"}
        entry["partitions"] = place.partitions(con, target)
    return entry


def export_warehouse(
    db_path: Path | str, out: Path | str, fmt: Format = "parquet", *, wait_s: float = 30.0
) -> dict[str, Any]:
    """Write every public view and history table of the file at `db_path` (a snapshot) into `out`. A new folder
    appears whole or not at all: it is written beside its final name and renamed when complete. An `s3://` prefix
    is written in place, manifest.json last (`warehouse/export_targets.py`)."""
    with connect(db_path, read_only=True, wait_s=wait_s) as con:  # before any folder: a refusal leaves nothing
        place = target_of(out)
        if isinstance(place, BucketPrefix):
            reach(con, place.url, httpfs_extension())
            return export_into(con, db_path, place, fmt)
        out = Path(out)
        if out.is_dir():
            return export_into(con, db_path, out, fmt)
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
        try:
            manifest = export_into(con, db_path, staging, fmt)
            staging.rename(out)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return manifest


def export_into(
    con: duckdb.DuckDBPyConnection, db_path: Path | str, out: Path | ExportTarget, fmt: Format
) -> dict[str, Any]:
    """Every public view and history table, then manifest.json, into the folder or prefix `out`."""
    place = target_of(out) if isinstance(out, Path) else out
    columns = columns_by_relation(con)
    views, tables = rows_as_dicts(con, PUBLIC_VIEWS), rows_as_dicts(con, HISTORY_TABLES)
    files = [export_one(con, v["name"], v["comment"], place, fmt, False, columns[v["name"]]) for v in views]
    files += [export_one(con, t["name"], t["comment"], place, fmt, True, columns[t["name"]]) for t in tables]
    manifest = {"format": fmt, "snapshot": snapshot_info(con, db_path), "files": sorted(files, key=lambda f: f["name"])}
    place.write_text(con, MANIFEST, json.dumps(manifest, indent=2, default=str) + "\n")
    return manifest
