"""The schema's CHECK constraints, enforced on a DuckLake, which stores none.

On a DuckDB file a value a CHECK refuses (a negative price, an unknown price kind) makes the landing fail with a
ConstraintException, and the batch is quarantined whole. A lake keeps the same promise: before a landing
commits, the rows it wrote (by fetch_id) are tested against the same CHECK expressions, read from the schema files,
and any row that fails raises the same exception inside the transaction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

import duckdb

from warehouse.binding import execute
from warehouse.sql_files import schema_files, sql

TABLE = re.compile(r"CREATE TABLE IF NOT EXISTS (\w+)\s*\(", re.IGNORECASE)
CHECK = re.compile(r"\bCHECK\s*\(", re.IGNORECASE)


def closing(text: str, start: int) -> int:
    """Index just past the parenthesis that closes the one opened before `start` (string literals skipped)."""
    depth, i, quoted = 1, start, False
    while depth:
        char = text[i]
        if char == "'":
            quoted = not quoted
        elif not quoted:
            depth += {"(": 1, ")": -1}.get(char, 0)
        i += 1
    return i


def table_checks(texts: Iterable[str]) -> dict[str, list[str]]:
    """Each table's CHECK expressions, as its CREATE TABLE states them."""
    checks: dict[str, list[str]] = {}
    for text in texts:
        for table in TABLE.finditer(text):
            body = text[table.end() : closing(text, table.end()) - 1]
            found = [body[m.end() : closing(body, m.end()) - 1] for m in CHECK.finditer(body)]
            checks.setdefault(table[1], []).extend(found)
    return checks


@cache
def schema_checks() -> dict[str, list[str]]:
    return table_checks(sql(path) for path in schema_files())


def enforce_checks(con: duckdb.DuckDBPyConnection, tables: Iterable[str], fetch_id: int) -> None:
    """Raise ConstraintException, naming the table and the rule, if a row this fetch wrote breaks a CHECK.
    As in SQL, a CHECK that evaluates to NULL passes. One scan per table counts every rule's failures."""
    for table in dict.fromkeys(tables):
        expressions = schema_checks().get(table, [])
        if not expressions:
            continue
        counts = ", ".join(f"count(*) FILTER (WHERE ({expression}) IS FALSE)" for expression in expressions)
        row = execute(
            con, f"SELECT {counts} FROM {table} WHERE fetch_id = $fetch_id", {"fetch_id": fetch_id}
        ).fetchone()
        for expression, failed in zip(expressions, row or (), strict=False):
            if failed:
                raise duckdb.ConstraintException(
                    f"CHECK constraint failed on table {table} with expression CHECK({expression}): {failed} row(s)"
                )
