"""Opening the warehouse file and keeping its schema current."""

from __future__ import annotations

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


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    for name in SCHEMA_FILES:
        con.execute(sql(name))


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
