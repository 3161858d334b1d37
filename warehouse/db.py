"""Opening the warehouse file and keeping its schema current."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

SQL_DIR = Path(__file__).resolve().parent / "sql"
DEFAULT_DB_PATH = Path(__file__).resolve().parent / "prices.duckdb"
# Order matters: views need the tables, and CREATE OR REPLACE VIEW drops a view's comments.
SCHEMA_FILES = (
    "schema.sql", "schema_gpu.sql",
    "comments.sql", "comments_gpu.sql",
    "views.sql", "views_gpu.sql",
    "comments_views.sql", "comments_views_gpu.sql",
)


def sql(name: str) -> str:
    return (SQL_DIR / name).read_text()


def schema_sha256() -> str:
    """One hash over every schema file: a different hash means the DDL, views or comments changed."""
    digest = hashlib.sha256()
    for name in SCHEMA_FILES:
        digest.update(sql(name).encode())
    return digest.hexdigest()


SCHEMA_APPLIED = "SELECT sql_sha256 FROM schema_version"
RECORD_SCHEMA = "CREATE OR REPLACE TABLE schema_version AS SELECT $sha AS sql_sha256, current_timestamp AS applied_at"
COMMENT_SCHEMA = """
COMMENT ON TABLE schema_version IS 'Hash of the warehouse/sql files last applied to this file; opening a file whose hash differs applies them again.';
COMMENT ON COLUMN schema_version.sql_sha256 IS 'SHA-256 over the schema, view and comment SQL files, in the order they run.';
COMMENT ON COLUMN schema_version.applied_at IS 'When they were applied (UTC).';
"""


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Apply the schema files unless this file already has exactly these (saves ~0.35 s per connection)."""
    wanted = schema_sha256()
    try:
        applied = con.execute(SCHEMA_APPLIED).fetchall()
    except duckdb.CatalogException:
        applied = []
    if applied == [(wanted,)]:
        return
    for name in SCHEMA_FILES:
        con.execute(sql(name))
    from warehouse.gpu_landing import upgrade_gpu_history  # late: gpu_landing imports this module

    upgrade_gpu_history(con)  # data a new column needs in rows landed before it existed
    con.execute(RECORD_SCHEMA, {"sha": wanted})
    con.execute(COMMENT_SCHEMA)


class WarehouseBusy(RuntimeError):
    pass


def open_file(path: Path, read_only: bool, wait_s: float) -> duckdb.DuckDBPyConnection:
    """Open the file, waiting a bounded time while another process holds its lock (a client left open)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() >= deadline:
                if "lock" in str(exc).lower():
                    raise WarehouseBusy(
                        f"{path} is held by another process for {wait_s:g} s (a SQL client on the working file?"
                        f" clients should open {path.stem}.snapshot{path.suffix}): {exc}") from exc
                raise
            time.sleep(0.2)


@contextmanager
def connect(path: Path | str, *, read_only: bool = False, wait_s: float = 30.0) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection that is closed on every exit path, so the file lock never outlives a failure."""
    path = Path(path)
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    con = open_file(path, read_only, wait_s)
    try:
        if not read_only:
            ensure_schema(con)
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
    con.execute("COMMIT")
