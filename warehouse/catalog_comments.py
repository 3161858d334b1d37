"""The catalog_comments table: every COMMENT ON statement of the schema files, as rows.

A DuckLake stores comments on tables, views and table columns, but not on view columns or macros, so this table
is where clients of either backend find what every object means; on a DuckDB file it repeats the catalog.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

import duckdb
import pyarrow as pa

COMMENT = re.compile(
    r"COMMENT ON (TABLE|VIEW|MACRO TABLE|MACRO|COLUMN)\s+(\w+)(?:\.(\w+))?\s+IS\s+'((?:[^']|'')*)'\s*;", re.IGNORECASE
)
KINDS = {"TABLE": "table", "VIEW": "view", "MACRO TABLE": "macro", "MACRO": "macro", "COLUMN": "column"}


def stated_comments(texts: Iterable[str]) -> pa.Table:
    """One row per object or column; a later statement for the same one wins, as in SQL."""
    stated: dict[tuple[str, str, str | None], str] = {}
    for text in texts:
        for kind, name, column, comment in COMMENT.findall(text):
            stated[(KINDS[kind.upper()], name, column or None)] = comment.replace("''", "'")
    keys = list(stated)
    return pa.table(
        {
            "object_kind": [k[0] for k in keys],
            "object_name": [k[1] for k in keys],
            "column_name": pa.array([k[2] for k in keys], pa.string()),
            "comment": list(stated.values()),
        }
    )


def record_catalog_comments(
    con: duckdb.DuckDBPyConnection, schema_files: Iterable[Path], read: Callable[[Path], str]
) -> None:
    """Refill catalog_comments from the schema files (in bulk, one Arrow table)."""
    rows = stated_comments(read(path) for path in schema_files)
    con.execute("DELETE FROM catalog_comments")
    con.register("stated_catalog_comments", rows)
    try:
        con.execute(
            "INSERT INTO catalog_comments SELECT object_kind, object_name, column_name, comment "
            "FROM stated_catalog_comments"
        )
    finally:
        con.unregister("stated_catalog_comments")
