"""Opening the warehouse file and keeping its schema current."""

from __future__ import annotations

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


@contextmanager
def connect(path: Path | str, *, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection that is closed on every exit path, so the file lock never outlives a failure."""
    path = Path(path)
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path), read_only=read_only)
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
