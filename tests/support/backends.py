"""Both warehouse backends for parametrised tests: a DuckDB file, and a DuckLake whose catalog is a database of its
own on the machine's PostgreSQL server (dropped afterwards) with its Parquet files under the test's tmp_path.

A test's lake starts as a clone of an empty lake with today's schema (support/empty_lake.py): applying the schema
to a new catalog takes about 1.7 s, cloning it about 0.1 s. A test of what a new catalog does on its first open
asks for `fresh=True`.

`RATECARD_LAKE_DATA_PATH` is set in the environment, so CLI and Dagster subprocesses find the same lake.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.pgserver import HOST, PORT, USER, fresh_database
from warehouse.target import LAKE_DATA_ENV

BACKENDS = ["file", "ducklake"]


def lake_location(dbname: str) -> str:
    return f"ducklake:postgres:dbname={dbname} host={HOST} port={PORT} user={USER}"


@contextmanager
def warehouse_at(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, fresh: bool = False
) -> Iterator[Path | str]:
    """The location to hand to ratecard: a file path, or a lake's `ducklake:postgres:` string (a clone of the empty
    lake, or with `fresh` a catalog no one has opened yet)."""
    if backend == "file":
        yield tmp_path / "warehouse" / "prices.duckdb"
        return
    if not fresh:
        from tests.support.empty_lake import empty_lake_clone

        with empty_lake_clone(tmp_path / "lake", monkeypatch) as location:
            yield location
        return
    monkeypatch.setenv(LAKE_DATA_ENV, str(tmp_path / "lake"))
    with fresh_database("ratecard_lake") as dbname:
        yield lake_location(dbname)
