"""Reading fetch_log back after a stop (pipelines/refresh/logged.py): never through DuckDB's instance cache, so a file
whose instance the stopped work left alive in this process is refused at once, never waited on forever."""

from __future__ import annotations

import time

import pytest

from pipelines.refresh.logged import LogUnreadable, logged_in
from warehouse.db import connect


def test_a_missing_file_and_a_warehouse_with_no_fetch_logged_nothing(tmp_path):
    assert logged_in(tmp_path / "none.duckdb", 0) == []
    db = tmp_path / "prices.duckdb"
    with connect(db):
        pass  # the schema, fetch_log empty
    assert logged_in(db, 0) == []


def test_a_file_still_open_in_this_process_is_refused_at_once_not_waited_on(tmp_path):
    db = tmp_path / "prices.duckdb"
    with connect(db):  # as the stopped work's instance, still alive
        started = time.monotonic()
        with pytest.raises(LogUnreadable, match="fetch_log could not be read back"):
            logged_in(db, 0)
        assert time.monotonic() - started < 5
    assert logged_in(db, 0) == []  # closed: read again
