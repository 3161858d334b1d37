"""Scenario 14 — a host that accepts connections and never answers, holding every source of the bundled file.

Every fetched source of pipelines/sources.toml is pointed at one socket on 127.0.0.1 that accepts and stays
silent (bench/silent_host.py), and refreshed through pipelines.refresh.many_sources
as `ratecard refresh` does, into a fresh warehouse each time:

- at the shipped defaults (connect 10 s, read 30 s, 4 attempts, 2 per host, trip after 3 timeouts in a row): the
  wall time for every source to be reported, the goal being at most 3 minutes;
- at scaled-down timeouts (read and connect DEMO_TIMEOUT_S), once with the breaker and once without it (a trip
  threshold no run reaches), for the ratio the breaker buys and the requests the host saw each way.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.report import Result, Timing, fmt_ratio, fmt_seconds, progress, ratio
from bench.silent_host import SilentHost
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.fetch.offline import pointed_at
from pipelines.refresh.many_sources import refresh_all
from pipelines.sources.file import load_sources

SCENARIO = "14 hanging host"
DEMO_TIMEOUT_S = 0.5
NEVER = 1_000_000  # a trip threshold no run reaches: the breaker off


def one_run(settings: FetchSettings) -> tuple[float, int, Counter[str]]:
    """Wall seconds until every source is reported, connections the host accepted, outcomes by failure cause."""
    sources = [s for s in load_sources() if not s.adapter_info.reads_files]
    with (
        SilentHost() as host,
        tempfile.TemporaryDirectory(prefix="ratecard-bench-hanging-") as tmp,
        Fetcher(settings) as fetcher,
    ):
        started = time.perf_counter()
        outcomes = refresh_all(
            pointed_at(sources, host.base_url),
            db_path=Path(tmp) / "prices.duckdb",
            archive=Archive(Path(tmp) / "archive"),
            fetcher=fetcher,
            max_sources=16,
        )
        wall = time.perf_counter() - started
    assert len(outcomes) == len(sources), "every source is reported"
    return wall, host.accepted, Counter(str(getattr(o.error, "cause", o.status)) for o in outcomes)


def run(shipped: bool = True) -> list[Result]:
    results = []
    if shipped:
        progress("hanging host: every source, shipped defaults (about a minute)")
        wall, accepted, causes = one_run(FetchSettings())
        results.append(
            Result(
                SCENARIO,
                f"every source reported, shipped defaults ({sum(causes.values())} sources)",
                Timing((wall,)),
                note=f"goal ≤ 3 min; host saw {accepted} connections; {dict(causes)}",
            )
        )
    quick = {"read_timeout_s": DEMO_TIMEOUT_S, "connect_timeout_s": DEMO_TIMEOUT_S}
    progress(f"hanging host: read timeout {DEMO_TIMEOUT_S} s, without and with the breaker")
    off_wall, off_accepted, _ = one_run(FetchSettings(**quick, trip_after_timeouts=NEVER))  # type: ignore[arg-type]
    on_wall, on_accepted, _ = one_run(FetchSettings(**quick))  # type: ignore[arg-type]
    results += [
        Result(SCENARIO, f"no breaker, read timeout {DEMO_TIMEOUT_S} s", Timing((off_wall,)),
               note=f"host saw {off_accepted} connections"),
        Result(SCENARIO, f"breaker (3 in a row), read timeout {DEMO_TIMEOUT_S} s", Timing((on_wall,)),
               note=f"host saw {on_accepted} connections"),
        Result(SCENARIO, "RATIO no breaker ÷ breaker", value=fmt_ratio(ratio(off_wall, on_wall)),
               note=f"wall {fmt_seconds(off_wall)} vs {fmt_seconds(on_wall)}, same run"),
    ]  # fmt: skip
    return results
