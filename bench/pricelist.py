"""Scenario 6 — one full-size regional EC2 offer file (CSV, >= 400 MB) parsed to a PriceListBatch.

A seeded, streaming generator (bench/offer_full_size.py) writes the file into a temporary directory (not kept).
Each parse runs in its own child process so its peak RSS (getrusage ru_maxrss) is its own: ratecard's DuckDB
parser (`parse_offer_csv`) beside the naive baseline, pandas reading the whole file (`read_csv(skiprows=5,
dtype=str)`, as skypilot does) and filtering the frame. Both keep the same on-demand rows, which is checked.
The bound: peak RSS < 600 MB while parsing one full-size region.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from bench.offer_full_size import write_full_size
from bench.report import Result, Timing, fmt_ratio, progress, ratio
from pipelines.pricelist.families import allowed
from pipelines.pricelist.offer_csv import parse_offer_csv

SCENARIO = "6 price list"
MEGABYTES = 420
RSS_BOUND_MB = 600


def _parse_duckdb(path: Path) -> list[str]:
    batch = parse_offer_csv(path, "bench_price_list", region_code="us-west-2")
    return sorted(f"{p.instance_type} {p.hourly_usd}" for p in batch.prices if p.price_kind == "on_demand")


def _parse_pandas(path: Path) -> list[str]:
    frame = pd.read_csv(path, skiprows=5, dtype=str, keep_default_na=False)
    keep = frame[
        (frame["Product Family"] == "Compute Instance")
        & (frame["TermType"] == "OnDemand")
        & (frame["Tenancy"] == "Shared")
        & (frame["Operating System"] == "Linux")
        & (frame["Pre Installed S/W"] == "NA")
        & (frame["CapacityStatus"] == "Used")
        & (frame["MarketOption"] == "OnDemand")
        & (frame["License Model"] == "No License required")
        & (frame["Unit"] == "Hrs")
    ]
    keep = keep[keep["Instance Type"].map(allowed) & (keep["PricePerUnit"].map(float) > 0)]
    # The same rows the DuckDB parser turns into records (it also drops types without a whole accelerator count).
    return sorted(f"{t} {p}" for t, p in zip(keep["Instance Type"], keep["PricePerUnit"], strict=True))


def child(mode: str, path: str) -> None:
    """Run in a fresh interpreter: parse once, print seconds, peak RSS (MB) and the kept rows as JSON.

    Both parsers' imports (pandas, DuckDB, pydantic) happen at module import, outside the timed span, and
    count in both peaks alike."""
    started = time.perf_counter()
    rows = (_parse_duckdb if mode == "duckdb" else _parse_pandas)(Path(path))
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "rows": rows}))


def _run_child(mode: str, path: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.pricelist", mode, str(path)], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _comparable(rows: object) -> set[str]:
    from decimal import Decimal

    assert isinstance(rows, list)
    return {f"{r.split()[0]} {Decimal(r.split()[1]).normalize()}" for r in rows}


def run(megabytes: int = MEGABYTES) -> list[Result]:
    with tempfile.TemporaryDirectory(prefix="ratecard-bench-pricelist-") as folder:
        path = Path(folder) / "us-west-2.csv"
        progress(f"{SCENARIO}: writing a {megabytes} MB offer file")
        t0 = time.perf_counter()
        size = write_full_size(path, megabytes, region="us-west-2")
        written = time.perf_counter() - t0
        with open(path, "rb") as written_file:
            lines = sum(1 for _ in written_file)
        progress(f"{SCENARIO}: DuckDB parser in a child process")
        ours = _run_child("duckdb", path)
        progress(f"{SCENARIO}: pandas whole-file baseline in a child process")
        naive = _run_child("pandas", path)
    same = _comparable(ours["rows"]) <= _comparable(naive["rows"])
    t_ours, t_naive = float(ours["seconds"]), float(naive["seconds"])  # type: ignore[arg-type]
    mb_ours, mb_naive = float(ours["peak_mb"]), float(naive["peak_mb"])  # type: ignore[arg-type]
    bound = "under" if mb_ours < RSS_BOUND_MB else "OVER"

    def timed(name: str, seconds: float, note: str) -> Result:
        return Result(SCENARIO, name, Timing((seconds,)), rows=lines, note=note)

    def value(name: str, text: str, note: str) -> Result:
        return Result(SCENARIO, name, value=text, note=note)

    return [
        timed(f"generate offer file ({size / 1e6:,.0f} MB, {lines:,} lines)", written, "seeded, streaming"),
        timed("parse_offer_csv (DuckDB), one region", t_ours, f"{len(ours['rows'])} on-demand rows kept"),  # type: ignore[arg-type]
        timed(
            "baseline: pandas read_csv whole file + filter",
            t_naive,
            f"{len(naive['rows'])} rows; ours ⊆ baseline: {same}",  # type: ignore[arg-type]
        ),
        value("peak RSS, DuckDB parser", f"{mb_ours:,.0f} MB", f"{bound} the {RSS_BOUND_MB} MB bound"),
        value("peak RSS, pandas baseline", f"{mb_naive:,.0f} MB", "child process ru_maxrss"),
        value("RATIO time baseline ÷ ours", fmt_ratio(ratio(t_naive, t_ours)), "> 1: ours faster"),
        value("RATIO peak RSS baseline ÷ ours", fmt_ratio(ratio(mb_naive, mb_ours)), "> 1: ours leaner"),
    ]


if __name__ == "__main__":
    child(sys.argv[1], sys.argv[2])
