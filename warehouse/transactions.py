"""Transactions on an open connection: commit labels on a lake, and retrying a lake commit that conflicts.

Below both the connection code (warehouse.db) and the landings: both run work in a transaction, and neither
needs the other for it.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import duckdb

from warehouse.binding import execute
from warehouse.lake import LAKE


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
# A DuckLake commit that conflicts with another writer's; two connections of one process updating one row of a
# DuckDB file.
CONFLICTS = ("Transaction conflict", "Conflict on update")
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


def label_commit(con: duckdb.DuckDBPyConnection) -> None:
    label = dict(_commit_label)
    if label and on_lake(con):
        message = label.get("message", "ratecard")
        execute(
            con,
            f"CALL {LAKE}.set_commit_message('ratecard', $message, extra_info => $info)",
            {"message": message, "info": json.dumps(label, sort_keys=True)},
        )


def in_transaction(con: duckdb.DuckDBPyConnection, work: Callable[[], T]) -> T:
    """`work` in one transaction; on a lake, run again from the start when another writer's commit conflicts
    (DuckLake checks at commit: both closed rows of one table, say). A DuckDB file conflicts only between
    connections of one process that update one row."""
    for attempt in range(CONFLICT_ATTEMPTS):
        try:
            with transaction(con):
                return work()
        except duckdb.TransactionException as exc:
            if not any(conflict in str(exc) for conflict in CONFLICTS) or attempt == CONFLICT_ATTEMPTS - 1:
                raise
            time.sleep(random.uniform(0.01, 0.05 * 2 ** min(attempt, 5)))  # jittered: writers part ways
    raise AssertionError("unreachable")
