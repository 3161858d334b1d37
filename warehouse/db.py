"""Opening the warehouse file and keeping its schema current."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import duckdb

from pipelines.reference import REGIONS_FILE
from warehouse.catalog_comments import record_catalog_comments
from warehouse.files import (
    NewerDuckDBFile,
    NotADuckDBFile,
    WarehouseBusy,
    WarehouseError,
    WarehouseMissing,
    WarehouseUnwritable,
)
from warehouse.lake import LAKE, file_id_sequences, lake_statements, open_lake, view_names
from warehouse.target import is_lake

SQL_DIR = Path(__file__).resolve().parent / "sql"
# Order matters: views need the tables, and CREATE OR REPLACE VIEW drops a view's comments.
SCHEMA_FILES = (
    "schema.sql",
    "schema_gpu.sql",
    "schema_pricelist.sql",
    "comments.sql",
    "comments_gpu.sql",
    "comments_pricelist.sql",
    "views.sql",
    "views_gpu.sql",
    "views_pricelist.sql",
    "comments_views.sql",
    "comments_views_gpu.sql",
    "comments_views_pricelist.sql",
    "schema_changes.sql",
    "views_changes.sql",
    "comments_views_changes.sql",
    "schema_specs.sql",
    "views_specs.sql",
    "comments_specs.sql",
    "schema_pilots.sql",
    "views_pilots.sql",
    "comments_pilots.sql",
    "schema_nvidia.sql",
    "views_value.sql",
    "comments_value.sql",
    "schema_catalog_comments.sql",
)


def sql(name: str) -> str:
    return (SQL_DIR / name).read_text()


def schema_sha256() -> str:
    """One hash over every schema file and the region reference: a different hash means the DDL, views or
    comments changed, or page rows' region codes need filling in again (landing.backfill_region_codes)."""
    digest = hashlib.sha256()
    for name in SCHEMA_FILES:
        digest.update(sql(name).encode())
    digest.update(REGIONS_FILE.read_bytes())
    return digest.hexdigest()


SCHEMA_APPLIED = "SELECT sql_sha256 FROM schema_version"
RECORD_SCHEMA = "CREATE OR REPLACE TABLE schema_version AS SELECT $sha AS sql_sha256, current_timestamp AS applied_at"
COMMENT_SCHEMA = """
COMMENT ON TABLE schema_version IS 'Hash of the warehouse/sql files last applied to this file; opening a file whose hash differs applies them again.';
COMMENT ON COLUMN schema_version.sql_sha256 IS 'SHA-256 over the schema, view and comment SQL files, in the order they run, and the AWS region reference (pipelines/reference/aws_regions.json).';
COMMENT ON COLUMN schema_version.applied_at IS 'When they were applied (UTC).';
"""  # noqa: E501 - comment texts are SQL literals, kept whole


def schema_texts(lake: bool) -> list[str]:
    texts = [sql(name) for name in SCHEMA_FILES]
    if not lake:
        return texts
    views = view_names(texts)
    return [lake_statements(text, views) for text in texts]


def applied_schema(con: duckdb.DuckDBPyConnection) -> list[tuple[str]]:
    try:
        return con.execute(SCHEMA_APPLIED).fetchall()
    except duckdb.CatalogException:
        return []


def apply_schema(con: duckdb.DuckDBPyConnection, wanted: str, lake: bool) -> None:
    for text in schema_texts(lake):
        con.execute(text)
    from warehouse.gpu_landing import upgrade_gpu_history  # late: gpu_landing imports this module
    from warehouse.landing import upgrade_aws_history

    upgrade_gpu_history(con)  # data a new column needs in rows landed before it existed
    upgrade_aws_history(con)  # attribute hashes in the current definition
    record_catalog_comments(con, SCHEMA_FILES, sql)
    con.execute(RECORD_SCHEMA, {"sha": wanted})
    con.execute(COMMENT_SCHEMA)


def ensure_schema(con: duckdb.DuckDBPyConnection, *, lake: bool = False) -> None:
    """Apply the schema files unless this warehouse already has exactly these (saves ~0.35 s per connection).
    On a lake, in one transaction: two writers opening a new lake at once conflict, and the loser finds it done."""
    wanted = schema_sha256()
    if applied_schema(con) == [(wanted,)]:
        return
    if not lake:
        apply_schema(con, wanted, lake)
        return
    in_transaction(con, lambda: None if applied_schema(con) == [(wanted,)] else apply_schema(con, wanted, lake))


# DuckDB 2.0 says "storage version number N, but we can only read storage versions between A and B";
# 1.5 says "version number N, but we can only read versions between A and B".
NEWER_STORAGE = re.compile(
    r"version number (\d+), "
    r"but we can only read (?:storage )?versions between (\d+) and (\d+)"
)
LOCK_HOLDER = re.compile(r"Conflicting lock is held in (.+?) \(PID (\d+)\)")
UNUSABLE_PATH = (
    "Is a directory",
    "Not a directory",
    "Permission denied",
    "Read-only file system",
    "No such file or directory",
)


def warehouse_error(path: Path, exc: duckdb.Error, wait_s: float) -> WarehouseError | None:
    """What DuckDB's refusal to open `path` means for its user; None for anything else (a bug, not a user error)."""
    message = str(exc)
    if "Could not set lock" in message:
        held = LOCK_HOLDER.search(message)
        holder = f"PID {held[2]}, {held[1]}" if held else "another process"
        return WarehouseBusy(
            path,
            f"held by another process ({holder}) for {wait_s:g} s; SQL clients should open "
            f"{path.stem}.snapshot{path.suffix} instead of the working file",
        )
    if newer := NEWER_STORAGE.search(message):
        return NewerDuckDBFile(
            path,
            f"written by a newer DuckDB (storage version {newer[1]}; DuckDB "
            f"{duckdb.__version__} reads versions {newer[2]} to {newer[3]})",
        )
    if "not a valid DuckDB database file" in message:
        return NotADuckDBFile(path, "not a DuckDB database file")
    if "Corrupt database file" in message:
        return NotADuckDBFile(path, f"damaged DuckDB file ({message.splitlines()[0]})")
    if "database does not exist" in message:
        return WarehouseMissing(path, "does not exist")
    reason = next((r for r in UNUSABLE_PATH if r in message), None)
    return WarehouseUnwritable(path, f"cannot hold a database file: {reason.lower()}") if reason else None


def writable_location(path: Path | str) -> None:
    """Create the file's directory, or say why no database file can be written at `path` (a lake: nothing to do)."""
    if is_lake(path):
        return
    path = Path(path)
    if path.is_dir():
        raise WarehouseUnwritable(path, "is a directory, not a database file")
    blocking = next((p for p in path.parents if p.exists()), None)
    if blocking is not None and not blocking.is_dir():
        raise WarehouseUnwritable(path, f"{blocking} is a file, not a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WarehouseUnwritable(path, f"its directory cannot be created: {exc.strerror or exc}") from exc
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise WarehouseUnwritable(path, "not writable: permission denied")


# A new working file in DuckDB 1.5's own storage format, not its default (v0.10.2, for old readers): measured
# 1.5-2x faster to insert into and commit (bench.engines). Clients read the snapshot, whose format publish.py pins.
FILE_CONFIG: dict[str, str | bool | int | float | list[str]] = {"storage_compatibility_version": "latest"}


def open_file(path: Path, read_only: bool, wait_s: float) -> duckdb.DuckDBPyConnection:
    """Open the file, waiting a bounded time while another process holds its lock (a client left open)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            # Only a file being created takes the config: DuckDB refuses a second connection to an open file with
            # other settings than the first (a user's plain duckdb.connect in the same process, say).
            creating = not read_only and not path.exists()
            return duckdb.connect(str(path), read_only=read_only, config=FILE_CONFIG if creating else {})
        except duckdb.Error as exc:
            error = warehouse_error(path, exc, wait_s)
            if isinstance(error, WarehouseBusy) and time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            if error is None:
                raise
            raise error from exc


# ratecard's own sessions work in UTC whatever the machine's zone, so every datetime they read back is in UTC (what
# its displays print anyway). It is also quicker: DuckDB 1.5.5's Python client makes a datetime of a TIMESTAMPTZ
# through pytz's UTC in two thirds of the time it takes through a zone file such as Etc/UTC. Per connection.
SESSION_TIME_ZONE = "SET TimeZone = 'UTC'"


@contextmanager
def connect(path: Path | str, *, read_only: bool = False, wait_s: float = 30.0) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection that is closed on every exit path, so the file lock never outlives a failure.

    `path` is a DuckDB file, or a `ducklake:postgres:<conninfo>` lake (warehouse.target)."""
    lake = is_lake(path)
    if lake:
        con = open_lake(str(path), read_only=read_only)
    else:
        path = Path(path)
        if not read_only:
            writable_location(path)
        con = open_file(path, read_only, wait_s)
    try:
        con.execute(SESSION_TIME_ZONE)
        if not read_only:
            ensure_schema(con, lake=lake)
            if not lake:
                file_id_sequences(con)
        yield con
    finally:
        con.close()


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    label_commit(con)
    con.execute("COMMIT")


T = TypeVar("T")
CONFLICT = "Transaction conflict"
CONFLICT_ATTEMPTS = 12
# What each lake commit says it belongs to (lake.snapshots() shows it): the refresh, set by whoever runs one.
# Process-wide, not per thread: the landing writer and the checker are threads of the refresh that set it.
_commit_label: dict[str, str] = {}


def label_commits(message: str, **info: str) -> None:
    """Label every later lake commit of this process: `lake.snapshots()` then shows which refresh made each."""
    _commit_label.clear()
    _commit_label.update(info, message=message)


def on_lake(con: duckdb.DuckDBPyConnection) -> bool:
    row = con.execute("SELECT current_database()").fetchone()
    return row is not None and row[0] == LAKE


def cursor(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """A cursor (for another thread) that reads the same catalog: `USE` and the time zone are per connection, so
    a lake's cursor is pointed at the lake again, and every cursor set to UTC."""
    other = con.cursor()
    other.execute(SESSION_TIME_ZONE)
    if on_lake(con):
        other.execute(f"USE {LAKE}")
    return other


def label_commit(con: duckdb.DuckDBPyConnection) -> None:
    label = dict(_commit_label)
    if label and on_lake(con):
        message = label.get("message", "ratecard")
        con.execute(
            f"CALL {LAKE}.set_commit_message('ratecard', $message, extra_info => $info)",
            {"message": message, "info": json.dumps(label, sort_keys=True)},
        )


def in_transaction(con: duckdb.DuckDBPyConnection, work: Callable[[], T]) -> T:
    """`work` in one transaction; on a lake, run again from the start when another writer's commit conflicts
    (DuckLake checks at commit: both closed rows of one table, say). The file backend never conflicts."""
    for attempt in range(CONFLICT_ATTEMPTS):
        try:
            with transaction(con):
                return work()
        except duckdb.TransactionException as exc:
            if CONFLICT not in str(exc) or attempt == CONFLICT_ATTEMPTS - 1:
                raise
            time.sleep(random.uniform(0.01, 0.05 * 2 ** min(attempt, 5)))  # jittered: writers part ways
    raise AssertionError("unreachable")
