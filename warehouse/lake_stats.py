"""A new lake table gets its statistics row at once, so a query on it while it is still empty stays cheap.

DuckLake (the extension built for DuckDB 1.5.5) keeps a table's statistics only once rows were written to it, and
caches none for a table that has none: planning a query then asks the catalog again for every column it reads, on
every query, for as long as the table stays empty (duckdb/ducklake issues 1313 and 1398). On PostgreSQL that made a
`SELECT *` of an empty 10-column table cost 85-135 ms against 13-16 ms once it held a row, and a first refresh of
every sample into a new lake a third more CPU. Many of ratecard's tables stay empty for long (the quarantine,
the kinds a user does not fetch), and views read them all.

So the transaction that creates a table also inserts one row into it and deletes that row: the table is empty at
every snapshot, the catalog holds its statistics, and the snapshot lists only the creation and an inlined insert.
"""

from __future__ import annotations

import duckdb

from warehouse.lake import LAKE
from warehouse.quoting import ident

LAKE_TABLES = f"SELECT table_name FROM duckdb_tables() WHERE database_name = '{LAKE}'"
NOT_NULL_COLUMNS = f"""SELECT column_name, data_type FROM duckdb_columns()
                       WHERE database_name = '{LAKE}' AND table_name = ? AND NOT is_nullable ORDER BY column_index"""
PLACEHOLDER_TEXT = {"VARCHAR": "''", "BLOB": "''", "BOOLEAN": "false", "DATE": "'2000-01-01'"}
NUMERIC = ("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "HUGEINT", "DOUBLE", "FLOAT", "DECIMAL")


def lake_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {name for (name,) in con.execute(LAKE_TABLES).fetchall()}


def placeholder(data_type: str) -> str:
    """A value of `data_type` for a NOT NULL column of the row that is deleted at once."""
    if data_type.endswith("[]"):
        text = "[]"
    elif data_type.startswith(NUMERIC):
        text = "0"
    elif data_type.startswith("TIMESTAMP"):
        text = "'2000-01-01 00:00:00+00'"
    elif data_type in PLACEHOLDER_TEXT:
        text = PLACEHOLDER_TEXT[data_type]
    else:
        raise TypeError(f"lake statistics: no placeholder for a NOT NULL {data_type} column")
    return f"CAST({text} AS {data_type})"


def give_statistics(con: duckdb.DuckDBPyConnection, tables: set[str]) -> None:
    """Insert one row into each of these new, empty tables and delete it (call it inside their transaction)."""
    for table in sorted(tables):
        columns = con.execute(NOT_NULL_COLUMNS, [table]).fetchall()
        names = ", ".join(ident(name) for name, _ in columns)
        values = ", ".join(placeholder(data_type) for _, data_type in columns)
        quoted = ident(table)
        row = f"({names}) VALUES ({values})" if columns else "DEFAULT VALUES"
        con.execute(f"INSERT INTO {quoted} {row}")
        con.execute(f"DELETE FROM {quoted}")
