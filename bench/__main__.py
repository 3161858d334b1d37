"""`python -m bench [landing|history|offline_refresh|parsing|gate|sources|pricelist|pricelist_landing|
pricelist_refresh|dagster|refresh_phases|hanging_host|...]`: run the scenarios (all by default), print one table.

Every figure, and every ratio, comes from this run: nothing is compared with remembered numbers.
Progress goes to stderr; the report to stdout.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
import traceback
from importlib.metadata import version
from pathlib import Path

from bench import (
    dagster_job,
    exports,
    gate,
    hanging_host,
    history,
    lake_refresh,
    landing,
    offline_refresh,
    parsing,
    pricelist,
    pricelist_landing,
    pricelist_refresh,
    publish,
    refresh_phases,
    sources,
)
from bench.report import Result, fmt_seconds, render_table
from schemas import gx_results

SCENARIOS = {
    "landing": landing,
    "history": history,
    "offline_refresh": offline_refresh,
    "refresh_phases": refresh_phases,
    "parsing": parsing,
    "gate": gate,
    "sources": sources,
    "pricelist": pricelist,
    "pricelist_landing": pricelist_landing,
    "pricelist_refresh": pricelist_refresh,
    "publish": publish,
    "exports": exports,
    "dagster": dagster_job,
    "hanging_host": hanging_host,
    "lake_refresh": lake_refresh,
}
BUDGET_SECONDS = 180

LEGEND = """\
How to read this
  median / value  median of n timed runs after 1 untimed warm-up (time.perf_counter, GC paused while
                  timing); setup such as fresh warehouse files or undoing a refresh is outside the timing.
                  Each run is one call (one landing, one query, one page parse). Scenario 2's daily
                  refresh row instead times each of its refreshes once, in order (no warm-up).
  min – max       fastest and slowest of those n runs, to show the noise.
  throughput      rows handled per timed run ÷ median.
  RATIO rows      computed from the medians above, in this same run; each note says which way round.
  Money in all generated rows is Decimal / Arrow decimal128, never float. Temporary DuckDB files live in
  a TemporaryDirectory and are removed at the end of each scenario."""


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def _memory_gib() -> str:
    try:
        return f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.1f} GiB RAM"
    except (ValueError, OSError):
        return "RAM unknown"


def _environment() -> str:
    packages = ", ".join(f"{name} {version(name)}" for name in ("duckdb", "pyarrow", "beautifulsoup4", "lxml"))
    return (
        f"Python {platform.python_version()} on {platform.system()} {platform.machine()}; "
        f"{os.cpu_count()} cores, {_cpu_model()}, {_memory_gib()}; {packages}; temp dir {tempfile.gettempdir()}"
    )


def main(argv: list[str]) -> int:
    unknown = [a for a in argv if a not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s) {unknown}; choose from {list(SCENARIOS)}", file=sys.stderr)
        return 2
    chosen = argv or list(SCENARIOS)
    print("ratecard bench —", _environment(), flush=True)
    started = time.perf_counter()
    results: list[Result] = []
    failed: list[str] = []
    for name in chosen:
        t0 = time.perf_counter()
        print(f"running {name} …", file=sys.stderr, flush=True)
        try:
            with gx_results.bypassed():  # every validation is timed as a first one: no result kept from a rep
                results += SCENARIOS[name].run()
        except Exception:  # report the others anyway, then exit non-zero
            traceback.print_exc()
            failed.append(name)
        print(f"  {name} done in {fmt_seconds(time.perf_counter() - t0)}", file=sys.stderr, flush=True)
    total = time.perf_counter() - started

    print()
    print(LEGEND)
    print()
    print(render_table(results))
    print()
    over = f"  (over the {BUDGET_SECONDS} s budget)" if total > BUDGET_SECONDS else ""
    print(f"Total bench wall time: {fmt_seconds(total)}{over}")
    if failed:
        print(f"FAILED scenarios: {', '.join(failed)} (traceback on stderr)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
