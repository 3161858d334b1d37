"""Scenario 2 — five years of daily refreshes (synthetic): does history grow with changes rather than with runs,
and what do as-of queries and the public views cost on it?

Two sources, refreshed once a day for DAYS days through the project's landing (log_fetch + land_snapshot, one
transaction a day): an AWS price page with AWS_TYPES x 100 price rows (specs landed on day 0) and a GPU
provider listing page with GPU_LISTINGS listings. Each day re-prices CHANGED_SHARE of each source's rows
(new random prices, derived columns recomputed exactly); the rest is unchanged. Snapshots are built in Arrow
directly (scenario 1 times snapshot_table from dicts).

Reported: history rows against rows x runs (what appending every run would hold), the refresh time, as-of
queries at the middle of the period against a full scan of the same table, and the views' latency.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from bench import data
from bench.report import Result, Timing, fmt_ratio, fmt_seconds, measure, progress, ratio
from pipelines.aws.landing import PRICES, SPECS
from pipelines.gpu.landing import GPU_LISTINGS
from warehouse.db import connect
from warehouse.landing import FetchRecord, log_fetch
from warehouse.transactions import transaction
from warehouse.versioning import Lineage, VersionedTable, land_snapshot, snapshot_table, with_lineage

SCENARIO = "2 five years daily"
DAYS = 1_826
AWS_TYPES = 20  # x 100 keys per type = 2,000 AWS price rows
GPU_LISTINGS_COUNT = 1_500
CHANGED_SHARE = 0.01
REPS = 10
START = datetime(2021, 12, 1, 6, 0, tzinfo=UTC)
FX_RATE_DATE = date(2021, 11, 30)
AWS_SOURCE, GPU_SOURCE = "aws_bench", "gpu_bench"
AWS_URL, GPU_URL = "https://aws.amazon.com/ec2/instance-types/bench/", "https://gpu.example.invalid/pricing"


@dataclass(frozen=True)
class Sizes:
    days: int
    aws_types: int
    gpu_listings: int
    reps: int


def snapshot_of(attributes: dict[str, pa.Array], source_id: str, lineage: Lineage) -> pa.Table:
    """What snapshot_table builds from the same rows as dicts, built from Arrow columns."""
    n = len(next(iter(attributes.values())))
    return with_lineage(pa.table({"source_id": pa.repeat(pa.scalar(source_id), n), **attributes}), lineage)


def refresh(
    con: duckdb.DuckDBPyConnection,
    source_id: str,
    url: str,
    when: datetime,
    snapshots: dict[VersionedTable, pa.Table | dict[str, pa.Array]],
) -> int:
    """One day's fetch of one source, landed as land_batch does; returns rows inserted."""
    fetch_id = log_fetch(
        con, FetchRecord(source_id, url, when, status=200, sha256="a" * 64), outcome="landed", parser_version="b/1"
    )
    lineage = Lineage(fetch_id, url, when, "a" * 64, "b/1")
    inserted = 0
    for table, attributes in snapshots.items():
        snapshot = attributes if isinstance(attributes, pa.Table) else snapshot_of(attributes, source_id, lineage)
        inserted += land_snapshot(con, table, snapshot, source_id, when).inserted
    return inserted


def simulate(con: duckdb.DuckDBPyConnection, sizes: Sizes) -> tuple[Timing, int]:
    """Every day's refresh of both sources; returns the per-day timings and the number of re-priced rows."""
    rng = np.random.default_rng(5)
    type_idx, kind_idx, region_idx = data.key_indices(sizes.aws_types)
    names = data.instance_type_names(sizes.aws_types)
    aws_price = data.random_price_micro(rng, len(type_idx))
    gpu_price = data.gpu_price_micro(rng, sizes.gpu_listings)
    spec_lineage = Lineage(0, AWS_URL, START, "a" * 64, "b/1")
    specs = snapshot_table(SPECS, data.spec_rows(sizes.aws_types), AWS_SOURCE, spec_lineage)
    samples, changes = [], 0
    for day in range(sizes.days):
        when = START + timedelta(days=day)
        if day:  # day 0 opens everything; later days re-price a share of each source
            for prices, draw in ((aws_price, data.random_price_micro), (gpu_price, data.gpu_price_micro)):
                picked = rng.choice(len(prices), max(1, round(len(prices) * CHANGED_SHARE)), replace=False)
                prices[picked] = draw(rng, len(picked))
                changes += len(picked)
        t0 = time.perf_counter()
        aws = data.price_attributes(type_idx, kind_idx, region_idx, aws_price, names)
        gpu = data.gpu_listing_attributes(gpu_price, FX_RATE_DATE)
        with transaction(con):
            refresh(con, AWS_SOURCE, AWS_URL, when, {PRICES: aws, **({SPECS: specs} if day == 0 else {})})
            refresh(con, GPU_SOURCE, GPU_URL, when, {GPU_LISTINGS: gpu})
        samples.append(time.perf_counter() - t0)
    return Timing(tuple(samples)), changes


QUERIES = {
    "as-of AWS prices (mid-period)": "SELECT count(*), sum(usd_per_instance_hour) FROM aws_instance_prices_as_of($ts)",
    "full scan aws_instance_price_history": "SELECT count(*), sum(usd_per_instance_hour) "
    "FROM aws_instance_price_history",
    "as-of GPU listings (mid-period)": "SELECT count(*), sum(usd_per_gpu_hour) FROM gpu_listings_as_of($ts)",
    "full scan gpu_listing_history": "SELECT count(*), sum(usd_per_gpu_hour) FROM gpu_listing_history",
    "view gpu_cheapest": "SELECT * FROM gpu_cheapest",
    "view accelerator_hour_prices": "SELECT * FROM accelerator_hour_prices",
}
# The views again, read as BI tools and exports read them (Arrow, no Python object per value): the rows above
# also time the Python client turning each DECIMAL and TIMESTAMPTZ into a Decimal and a datetime.
TO_ARROW = {f"{name} -> Arrow": query for name, query in QUERIES.items() if name.startswith("view ")}


def query_runner(
    con: duckdb.DuckDBPyConnection, query: str, params: dict[str, object], arrow: bool = False
) -> Callable[[object], object]:
    if arrow:
        return lambda _: con.execute(query, params).to_arrow_table()
    return lambda _: con.execute(query, params).fetchall()


def run(sizes: Sizes | None = None) -> list[Result]:
    sizes = sizes or Sizes(DAYS, AWS_TYPES, GPU_LISTINGS_COUNT, REPS)
    aws_rows, gpu_rows = sizes.aws_types * data.KEYS_PER_TYPE, sizes.gpu_listings
    mid = START + timedelta(days=sizes.days // 2, hours=1)
    with (
        tempfile.TemporaryDirectory(prefix="ratecard-bench-years-") as tmp,
        connect(Path(tmp) / "years.duckdb") as con,
    ):
        progress(f"{SCENARIO}: {sizes.days:,} daily refreshes of {aws_rows:,} AWS + {gpu_rows:,} GPU rows")
        per_day, changes = simulate(con, sizes)
        con.execute("CHECKPOINT")
        ((aws_history,),) = con.execute("SELECT count(*) FROM aws_instance_price_history").fetchall()
        ((gpu_history,),) = con.execute("SELECT count(*) FROM gpu_listing_history").fetchall()
        # Each re-price opens exactly one row; nothing else may add any.
        assert aws_history + gpu_history == aws_rows + gpu_rows + changes, (aws_history, gpu_history, changes)
        timings: dict[str, Timing] = {}
        answers: dict[str, list[tuple[object, ...]]] = {}
        for name, query in {**QUERIES, **TO_ARROW}.items():
            params: dict[str, object] = {"ts": mid} if "$ts" in query else {}
            progress(f"{SCENARIO}: {name} x {sizes.reps + 1}")
            timings[name] = measure(query_runner(con, query, params, name in TO_ARROW), reps=sizes.reps)
            answers[name] = con.execute(query, params).fetchall()
    assert answers["as-of AWS prices (mid-period)"][0][0] == aws_rows, answers
    assert answers["as-of GPU listings (mid-period)"][0][0] == gpu_rows, answers
    assert answers["view gpu_cheapest"], "no cheapest GPU found"
    return results(sizes, per_day, aws_history + gpu_history, timings, answers)


def results(
    sizes: Sizes,
    per_day: Timing,
    history_rows: int,
    timings: dict[str, Timing],
    answers: dict[str, list[tuple[object, ...]]],
) -> list[Result]:
    rows_per_run = sizes.aws_types * data.KEYS_PER_TYPE + sizes.gpu_listings
    appended = rows_per_run * sizes.days
    out = [
        Result(
            SCENARIO,
            f"daily refresh ({rows_per_run:,} rows, 1 % changed)",
            per_day,
            rows=rows_per_run,
            note=f"{sizes.days:,} refreshes, {fmt_seconds(sum(per_day.samples))} in all; Arrow build + both landings",
        ),
        Result(
            SCENARIO,
            "history rows vs rows x runs",
            value=f"{history_rows:,} vs {appended:,}",
            note=f"type-2 keeps {history_rows / appended:.2%} of what appending every run would",
        ),
    ]
    for name, timing in timings.items():
        rows = answers[name][0][0] if name.startswith(("as-of", "full")) else len(answers[name])
        out.append(Result(SCENARIO, name, timing, note=f"{rows:,} rows {'counted' if 'scan' in name else 'returned'}"))
    for table, as_of, scan in (
        ("AWS", "as-of AWS prices (mid-period)", "full scan aws_instance_price_history"),
        ("GPU", "as-of GPU listings (mid-period)", "full scan gpu_listing_history"),
    ):
        value = fmt_ratio(ratio(timings[as_of].median, timings[scan].median))
        out.append(Result(SCENARIO, f"RATIO as-of ÷ full scan, {table}", value=value, note="medians of this run"))
    return out
