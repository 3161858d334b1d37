"""Scenario 16 — a lake against a file: `ratecard refresh --offline` of every bundled sample as a process, into a
new DuckDB file and into a new DuckLake (its catalog a new database on the machine's PostgreSQL at 127.0.0.1:5432,
its data in a temporary folder), then again into each (every source unchanged), side by side in one run. The goal:
a lake refresh at most 1.5 times the file's.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.offline_refresh import refresh
from bench.report import Result, Timing, progress, ratio
from warehouse.target import LAKE_DATA_ENV

SCENARIO = "16 lake vs file"
GOAL = 1.5


@contextmanager
def new_lake(folder: Path) -> Iterator[str]:
    """A lake no one has opened: a new PostgreSQL database (dropped after) and a data folder under `folder`."""
    import psycopg2  # type: ignore[import-untyped]  # the tests' PostgreSQL client; it ships no types

    name = f"ratecard_bench_lake_{os.getpid()}"
    admin = psycopg2.connect(host="127.0.0.1", port=5432, user="postgres", dbname="postgres")
    admin.autocommit = True
    before = os.environ.get(LAKE_DATA_ENV)
    os.environ[LAKE_DATA_ENV] = str(folder / "lake")
    try:
        with admin.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            cur.execute(f'CREATE DATABASE "{name}"')
        yield f"ducklake:postgres:dbname={name} host=127.0.0.1 port=5432 user=postgres"
    finally:
        with admin.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
        if before is None:
            os.environ.pop(LAKE_DATA_ENV, None)
        else:
            os.environ[LAKE_DATA_ENV] = before


def run(reps: int = 3) -> list[Result]:
    times: dict[tuple[str, str], list[float]] = {}
    for rep in range(reps):
        progress(f"{SCENARIO}: run {rep + 1} of {reps}")
        with tempfile.TemporaryDirectory(prefix="ratecard-bench-lake-") as tmp:
            folder = Path(tmp)
            with new_lake(folder) as lake:
                for target, where in (("file", str(folder / "prices.duckdb")), ("lake", lake)):
                    for when in ("new", "again"):
                        seconds, _ = refresh(where)
                        times.setdefault((target, when), []).append(seconds)
    found = []
    for when, said in (("new", "into a new warehouse"), ("again", "again (unchanged)")):
        on_file, on_lake = Timing(tuple(times[("file", when)])), Timing(tuple(times[("lake", when)]))
        found += [
            Result(SCENARIO, f"refresh --offline {said}: file", on_file),
            Result(SCENARIO, f"refresh --offline {said}: lake", on_lake),
            Result(
                SCENARIO,
                f"RATIO lake / file, {said}",
                value=f"{ratio(on_lake.median, on_file.median):.2f}×",
                note=f"goal ≤ {GOAL}",
            ),
        ]
    return found
