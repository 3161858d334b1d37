"""Rebuilding a table whose CHECK constraints are older than its schema file: DuckDB cannot alter a CHECK, so a
file made before a CHECK admitted a new value keeps refusing it until the table is made again."""

from __future__ import annotations

import duckdb

from warehouse.binding import execute
from warehouse.sql_files import sql

OLDER_CHECK = """
SELECT count(*) FROM duckdb_constraints()
WHERE table_name = $table AND constraint_type = 'CHECK'
  AND expression LIKE '%' || $column || '%' AND expression NOT LIKE '%''' || $admitted || '''%'
"""


# The tables a rebuild may name: constants, so their names are safe to place in the SQL text.
REBUILDABLE = frozenset({"gpu_listing_history", "pilot_inputs", "aws_pricelist_price_history"})


def rebuild_if_check_refuses(
    con: duckdb.DuckDBPyConnection, table: str, column: str, admitted: str, schema_file: str, comments_file: str
) -> bool:
    """If `table`'s CHECK on `column` does not admit `admitted`: copy the rows aside, recreate the table from
    `schema_file` (every statement there is idempotent), put every row back by name and comment it again.
    Returns whether it rebuilt. On a lake there are no CHECKs (warehouse.lake_checks enforces the file's text)."""
    if table not in REBUILDABLE:
        raise ValueError(f"{table} is not a table ratecard rebuilds")
    (older,) = execute(con, OLDER_CHECK, {"table": table, "column": column, "admitted": admitted}).fetchone() or (0,)
    if not older:
        return False
    con.execute(f"CREATE TEMP TABLE rebuilt_rows AS SELECT * FROM {table}")
    con.execute(f"DROP TABLE {table}")
    con.execute(sql(schema_file))
    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM rebuilt_rows")
    con.execute("DROP TABLE rebuilt_rows")
    con.execute(sql(comments_file))
    return True
