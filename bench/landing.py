"""Scenario 1 — type-2 landing of one source's 100k-row snapshot with 1 % changes into a ≥ 10M-row history,
against a raw append of the same snapshot.

History (generated inside DuckDB from one Arrow base of SOURCES x 100k keys, landed once): fetch round 0 opens
every key; in each of ROUNDS later rounds every source re-prices the keys k with k ≡ round (mod 100), i.e. 1 %,
so when a version closes is arithmetic. Money moves by exact DECIMAL steps (+0.01 per accelerator-hour a
round), so derived columns stay what pipelines.aws.records computes (checked on the snapshot). Rows are stored in
fetch order. attributes_hash holds a placeholder: the type-2 comparison reads the attribute columns, not it.

The snapshot is the target source's open rows read back as dicts (Decimals), 1 % re-priced by
pipelines.aws.records. Timed, each run one committed transaction, undone (and checkpointed) outside the timed span:
  * build:   snapshot_table, dicts -> typed Arrow (both paths need it);
  * type-2:  land_snapshot (close changed rows, insert new versions with their DuckDB-computed hash);
  * append:  INSERT ... SELECT of the whole snapshot, no comparison, no hash.
Each path runs in its own fresh process so its peak RSS is its own.
"""

from __future__ import annotations

import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from bench import data
from bench.report import Result, Timing, fmt_ratio, fmt_seconds, measure, progress, ratio
from pipelines.aws.landing import PRICES
from warehouse.db import connect
from warehouse.transactions import transaction
from warehouse.versioning import Lineage, land_snapshot, snapshot_table

SCENARIO = "1 type-2 landing"
SOURCES = 10
N_TYPES = 1_000  # x 100 keys per type = a 100,000-row snapshot per source
ROUNDS = 900  # 1 % of every source's keys per round: 1M + 900 x 10k = 10M rows
CHANGE_EVERY = 100  # key k is re-priced in the rounds r with r ≡ k (mod 100)
CHANGED_SHARE = 0.01
REPS = 5
TARGET = 0
BASE_TIME = "2020-01-01 00:00:00+00"
OBSERVED_AT = datetime(2030, 1, 1, tzinfo=UTC)
NEW_FETCH_ID = 10**9


@dataclass(frozen=True)
class Sizes:
    sources: int
    n_types: int
    rounds: int
    reps: int


@dataclass(frozen=True)
class PathRun:
    """What one process measured for one path."""

    timing: Timing
    build: Timing
    snapshot_rows: int
    added: int
    closed: int
    peak_rss_mb: float
    rss_before_mb: float


def source_id(s: int) -> str:
    return f"bench_src{s:02d}"


HISTORY_SQL = """
INSERT INTO aws_instance_price_history BY NAME
WITH versions AS (
    SELECT b.*, 0 AS r FROM _base AS b
    UNION ALL
    SELECT b.*, r.range AS r FROM range(1, $rounds + 1) AS r JOIN _base AS b ON b.k % $every = r.range % $every
), timed AS (  -- the next round re-pricing key k after round r
    SELECT *, r + ((k - r - 1) % $every + $every) % $every + 1 AS next_r, CAST(r AS DECIMAL(18, 0)) * 0.01 AS step
    FROM versions
)
SELECT 'bench_src' || lpad(CAST(s AS VARCHAR), 2, '0') AS source_id,
       instance_type, price_kind, region, region_stated, accelerator_count,
       usd_per_instance_hour + step * accelerator_count AS usd_per_instance_hour,
       usd_per_accelerator_hour + step AS usd_per_accelerator_hour,
       usd_per_accelerator_hour_4dp + step AS usd_per_accelerator_hour_4dp,
       printed_usd_per_accelerator_hour + step AS printed_usd_per_accelerator_hour,
       'placeholder' AS attributes_hash,
       CAST($base AS TIMESTAMPTZ) + to_days(r) + to_minutes(s) AS valid_from,
       CASE WHEN next_r <= $rounds THEN CAST($base AS TIMESTAMPTZ) + to_days(next_r) + to_minutes(s) END AS valid_to,
       r * 100 + s + 1 AS fetch_id,
       'https://aws.amazon.com/ec2/instance-types/bench/' AS source_url,
       CAST($base AS TIMESTAMPTZ) + to_days(r) + to_minutes(s) AS fetched_at,
       sha256(CAST(r * 100 + s AS VARCHAR)) AS sha256,
       'aws_product_page/1.0' AS parser_version
FROM timed
ORDER BY r, s, k
"""


def build_history(con: duckdb.DuckDBPyConnection, sizes: Sizes) -> int:
    """Generate and land the history; returns its row count."""
    rng = np.random.default_rng(1)
    type_idx, kind_idx, region_idx = data.key_indices(sizes.n_types)
    keys = len(type_idx)
    s = sizes.sources
    attrs = data.price_attributes(
        np.tile(type_idx, s),
        np.tile(kind_idx, s),
        np.tile(region_idx, s),
        data.random_price_micro(rng, keys * s),
        data.instance_type_names(sizes.n_types),
    )
    base = pa.table({"s": np.repeat(np.arange(s), keys), "k": np.tile(np.arange(keys), s), **attrs})
    con.register("_base", base)
    with transaction(con):
        con.execute(HISTORY_SQL, {"rounds": sizes.rounds, "every": CHANGE_EVERY, "base": BASE_TIME})
    con.unregister("_base")
    con.execute("CHECKPOINT")
    ((n,),) = con.execute(f"SELECT count(*) FROM {PRICES.name}").fetchall()
    return int(n)


def snapshot_rows(con: duckdb.DuckDBPyConnection) -> tuple[list[dict[str, Any]], int]:
    """The target's open rows as dicts, 1 % of them re-priced; and how many were."""
    query = f"""SELECT {", ".join(PRICES.attribute_columns)} FROM {PRICES.name}
                WHERE source_id = $source AND valid_to IS NULL ORDER BY instance_type, price_kind, region"""
    rows = con.sql(query, params={"source": source_id(TARGET)}).to_arrow_table().to_pylist()
    data.check_against_records(rows)
    rng = np.random.default_rng(2)
    n_changed = changed_count(len(rows))
    for i in rng.choice(len(rows), n_changed, replace=False).tolist():
        rows[i] = data.reprice(rows[i], rows[i]["usd_per_instance_hour"] + int(rng.integers(1, 101)) * data.CENT)
    return rows, n_changed


def changed_count(n: int) -> int:
    return max(1, round(n * CHANGED_SHARE))


def _max_rss_mb() -> float:
    """This process's peak resident set. VmHWM, not ru_maxrss: ru_maxrss survives exec, so a spawned process
    would report its parent's peak (the history generation)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def measure_path(db_path: str, path: str, reps: int) -> PathRun:
    """Run in a fresh process: build the snapshot, then time `path` ("type2" or "append") reps times."""
    target = source_id(TARGET)
    lineage = Lineage(NEW_FETCH_ID, "https://aws.amazon.com/ec2/instance-types/bench/", OBSERVED_AT, "f" * 64, "b/1")
    with connect(db_path) as con:
        rows, _n_changed = snapshot_rows(con)
        build = measure(lambda _: snapshot_table(PRICES, rows, target, lineage), reps=reps)
        snapshot = snapshot_table(PRICES, rows, target, lineage)
        ((before,),) = con.execute(f"SELECT count(*) FROM {PRICES.name}").fetchall()
        seen: dict[str, int] = {}

        def type2(_: object) -> None:
            with transaction(con):
                seen["closed"] = land_snapshot(con, PRICES, snapshot, target, OBSERVED_AT).closed

        def append(_: object) -> None:
            con.register("_append", snapshot)
            with transaction(con):
                con.execute(f"INSERT INTO {PRICES.name} BY NAME SELECT *, '' AS attributes_hash FROM _append")
            con.unregister("_append")

        def undo(_state: object, _out: object) -> None:
            ((after,),) = con.execute(f"SELECT count(*) FROM {PRICES.name}").fetchall()
            seen["added"] = after - before
            with transaction(con):
                con.execute(f"DELETE FROM {PRICES.name} WHERE fetch_id = $f", {"f": NEW_FETCH_ID})
                con.execute(f"UPDATE {PRICES.name} SET valid_to = NULL WHERE valid_to = $t", {"t": OBSERVED_AT})
            con.execute("CHECKPOINT")

        rss_before = _max_rss_mb()
        timing = measure(type2 if path == "type2" else append, reps=reps, teardown=undo)
    return PathRun(timing, build, snapshot.num_rows, seen["added"], seen.get("closed", 0), _max_rss_mb(), rss_before)


def run(sizes: Sizes | None = None) -> list[Result]:
    sizes = sizes or Sizes(SOURCES, N_TYPES, ROUNDS, REPS)
    with tempfile.TemporaryDirectory(prefix="ratecard-bench-landing-") as tmp:
        db_path = str(Path(tmp) / "history.duckdb")
        progress(f"{SCENARIO}: generating the history inside DuckDB")
        t0 = time.perf_counter()
        with connect(db_path) as con:
            n_history = build_history(con, sizes)
        t_history = time.perf_counter() - t0
        runs: dict[str, PathRun] = {}
        for path in ("type2", "append"):  # one at a time: two cores, and each process's peak must be its own
            progress(f"{SCENARIO}: {path} x {sizes.reps + 1} in a fresh process")
            with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
                runs[path] = pool.submit(measure_path, db_path, path, sizes.reps).result()
    return results(runs, n_history, t_history, sizes)


def results(runs: dict[str, PathRun], n_history: int, t_history: float, sizes: Sizes) -> list[Result]:
    t2, ap = runs["type2"], runs["append"]
    n = t2.snapshot_rows
    build = t2.build.median
    changed = changed_count(n)
    assert (t2.added, t2.closed) == (changed, changed) and ap.added == n, (t2, ap)

    def rss(run: PathRun) -> str:
        return f"process peak RSS {run.peak_rss_mb:,.0f} MB ({run.rss_before_mb:,.0f} MB before the timed runs)"

    return [
        Result(
            SCENARIO,
            "history rows (setup)",
            value=f"{n_history:,}",
            note=f"{sizes.sources} sources x {n:,} keys, {sizes.rounds} rounds of 1 %; "
            f"generated and landed in {fmt_seconds(t_history)} (1 run)",
        ),
        Result(SCENARIO, f"snapshot_table: {n:,} dicts -> Arrow", t2.build, rows=n, note="no hashing in Python"),
        Result(
            SCENARIO,
            f"type-2 land_snapshot, {n:,} rows",
            t2.timing,
            rows=n,
            note=f"+{t2.added:,} rows, {t2.closed:,} closed; {rss(t2)}",
        ),
        Result(SCENARIO, f"raw append, {n:,} rows", ap.timing, rows=n, note=f"+{ap.added:,} rows; {rss(ap)}"),
        Result(
            SCENARIO,
            "RATIO type-2 ÷ append, landing only",
            value=fmt_ratio(ratio(t2.timing.median, ap.timing.median)),
            note="time per refresh; goal ≤ 2×",
        ),
        Result(
            SCENARIO,
            "RATIO type-2 ÷ append, incl. build",
            value=fmt_ratio(ratio(build + t2.timing.median, build + ap.timing.median)),
            note="snapshot_table + landing, medians of this run",
        ),
    ]
