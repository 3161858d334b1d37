"""Scenario 1 — bulk load of one source's price snapshot into an empty aws_instance_price_history.

The same rows land three ways, each into a fresh warehouse file made by warehouse.db.connect, each in one
committed transaction (as land_batch does):
  * land_snapshot        — the project's path: Arrow table registered, anti-join INSERT ... SELECT;
  * executemany          — row-by-row parameterised INSERT of the same 17 columns. It is slow, so it runs
                           on the first EXEC_SAMPLE rows and its rows/s is extrapolated to N (labelled);
  * INSERT ... SELECT *  — plain Arrow append, the floor land_snapshot's type-2 checks sit on.
snapshot_table (dicts -> typed Arrow + per-row sha256) is timed on its own: any path needs it to fill
attributes_hash, so an end-to-end ratio including it is reported too.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pyarrow.compute as pc

from bench import data
from bench.report import Result, fmt_ratio, fmt_seconds, measure, progress, ratio
from warehouse.db import connect
from warehouse.landing import PRICES
from warehouse.versioning import Lineage, land_snapshot, snapshot_table

SCENARIO = "1 bulk load"
N_TYPES = 500  # x 100 keys per type = 50,000 rows
EXEC_SAMPLE = 3_000
REPS_FAST = 5
REPS_EXECUTEMANY = 3
SOURCE_ID = "bench_src"
FETCHED_AT = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
LINEAGE = Lineage(1, "https://example.invalid/bench", FETCHED_AT, "0" * 64, "bench/1.0")


class FreshWarehouse:
    """setup/teardown pair: a new warehouse file (schema applied) per timed run, deleted afterwards."""

    def __init__(self, root: Path):
        self.root = root
        self.count = 0

    def setup(self):
        self.count += 1
        cm = connect(self.root / f"load{self.count}.duckdb")
        con = cm.__enter__()
        return cm, con

    def teardown(self, state, _out) -> None:
        cm, _con = state
        cm.__exit__(None, None, None)
        for path in self.root.glob(f"load{self.count}.duckdb*"):
            path.unlink()


def _in_transaction(con, work):
    con.execute("BEGIN TRANSACTION")
    try:
        out = work()
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
    return out


def run() -> list[Result]:
    progress(f"{SCENARIO}: generating {N_TYPES * data.KEYS_PER_TYPE:,} price rows")
    rows = data.snapshot_rows(N_TYPES, seed=1)
    data.check_against_records(rows)
    n = len(rows)

    progress(f"{SCENARIO}: snapshot_table over {n:,} dicts")
    t_build = measure(lambda _: snapshot_table(PRICES, rows, SOURCE_ID, LINEAGE), reps=3)
    snapshot = snapshot_table(PRICES, rows, SOURCE_ID, LINEAGE)
    columns = snapshot.column_names
    sample = snapshot.slice(0, EXEC_SAMPLE)
    sample_tuples = [tuple(r[c] for c in columns) for r in sample.to_pylist()]
    insert_row = f"INSERT INTO {PRICES.name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    expected_sum = pc.sum(sample["usd_per_instance_hour"]).as_py()

    with tempfile.TemporaryDirectory(prefix="ratecard-bench-load-") as tmp:
        fresh = FreshWarehouse(Path(tmp))

        def land(state):
            _cm, con = state
            counts = _in_transaction(con, lambda: land_snapshot(con, PRICES, snapshot, SOURCE_ID, FETCHED_AT))
            assert counts.inserted == n, counts
            return counts

        def append(state):
            _cm, con = state
            con.register("_bulk", snapshot)
            try:
                _in_transaction(con, lambda: con.execute(f"INSERT INTO {PRICES.name} BY NAME SELECT * FROM _bulk"))
            finally:
                con.unregister("_bulk")

        def row_by_row(state):
            _cm, con = state
            _in_transaction(con, lambda: con.executemany(insert_row, sample_tuples))
            got_n, got_sum = con.execute(f"SELECT count(*), sum(usd_per_instance_hour) FROM {PRICES.name}").fetchall()[
                0
            ]
            assert got_n == EXEC_SAMPLE and got_sum == expected_sum, (got_n, got_sum, expected_sum)

        progress(f"{SCENARIO}: land_snapshot {n:,} rows x {REPS_FAST + 1}")
        t_land = measure(land, reps=REPS_FAST, setup=fresh.setup, teardown=fresh.teardown)
        progress(f"{SCENARIO}: plain Arrow INSERT {n:,} rows x {REPS_FAST + 1}")
        t_append = measure(append, reps=REPS_FAST, setup=fresh.setup, teardown=fresh.teardown)
        progress(f"{SCENARIO}: executemany {EXEC_SAMPLE:,} rows x {REPS_EXECUTEMANY + 1} (slow)")
        t_exec = measure(row_by_row, reps=REPS_EXECUTEMANY, setup=fresh.setup, teardown=fresh.teardown)

    build_rate = n / t_build.median
    land_rate = n / t_land.median
    exec_rate = EXEC_SAMPLE / t_exec.median
    # End to end per row: build the Arrow snapshot (hashes) and then land it, either way.
    e2e_arrow = 1 / build_rate + 1 / land_rate
    e2e_exec = 1 / build_rate + 1 / exec_rate
    return [
        Result(
            SCENARIO,
            f"snapshot_table: {n:,} dicts -> Arrow",
            t_build,
            rows=n,
            note="typing + sha256 per row in Python; both paths need it",
        ),
        Result(SCENARIO, f"land_snapshot (Arrow) {n:,} rows", t_land, rows=n, note="fresh file, 1 committed txn"),
        Result(SCENARIO, f"plain INSERT..SELECT Arrow {n:,} rows", t_append, rows=n, note="floor: no type-2 anti-join"),
        Result(
            SCENARIO,
            f"executemany {EXEC_SAMPLE:,}-row sample",
            t_exec,
            rows=EXEC_SAMPLE,
            note=f"same rows, 1 txn; at this rate {n:,} rows ≈ {fmt_seconds(n / exec_rate)} (extrapolated)",
        ),
        Result(
            SCENARIO,
            "RATIO land_snapshot ÷ executemany",
            value=fmt_ratio(ratio(land_rate, exec_rate)),
            note="rows/s, landing step only",
        ),
        Result(
            SCENARIO,
            "RATIO incl. snapshot_table",
            value=fmt_ratio(ratio(e2e_exec, e2e_arrow)),
            note="rows/s, build + land, same run",
        ),
        Result(
            SCENARIO,
            "RATIO land_snapshot ÷ plain INSERT",
            value=f"{ratio(t_land.median, t_append.median):.2f}×",
            note="time; cost of the type-2 checks on an empty table",
        ),
    ]
