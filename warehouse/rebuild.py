"""Rebuilding a table whose CHECK constraints are older than its schema file: DuckDB cannot alter a CHECK, so a
file made before a CHECK admitted a new value keeps refusing it until the table is made again."""

from __future__ import annotations

import duckdb

from warehouse.binding import execute
from warehouse.quoting import ident
from warehouse.sql_files import SchemaPart, sql

OLDER_CHECK = """
SELECT count(*) FROM duckdb_constraints()
WHERE table_name = $table AND constraint_type = 'CHECK'
  AND expression LIKE '%' || $column || '%' AND expression NOT LIKE '%''' || $admitted || '''%'
"""


def rebuild_if_check_refuses(
    con: duckdb.DuckDBPyConnection, table: str, column: str, admitted: str, part: SchemaPart
) -> bool:
    """If `table`'s CHECK on `column` does not admit `admitted`: copy the rows aside, recreate the table from its
    kind's tables file (every statement there is idempotent), put every row back by name and comment it again.
    Returns whether it rebuilt. On a lake there are no CHECKs (warehouse.lake_checks enforces the file's text)."""
    (older,) = execute(con, OLDER_CHECK, {"table": table, "column": column, "admitted": admitted}).fetchone() or (0,)
    if not older:
        return False
    con.execute(f"CREATE TEMP TABLE rebuilt_rows AS SELECT * FROM {ident(table)}")
    con.execute(f"DROP TABLE {ident(table)}")
    con.execute(sql(part.file("tables")))
    con.execute(f"INSERT INTO {ident(table)} BY NAME SELECT * FROM rebuilt_rows")
    con.execute("DROP TABLE rebuilt_rows")
    con.execute(sql(part.file("comments")))
    return True
