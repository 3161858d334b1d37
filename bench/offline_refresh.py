"""Scenario "offline refresh": what a user waits for, end to end. `ratecard refresh --offline` of every bundled
sample, as a process of this interpreter (start-up, imports, parsing, Great Expectations, landing, publishing
the snapshot): into a new warehouse file, then again into the same file (every source unchanged).

Each run is its own process, so the figure includes what a scheduled run pays to start: `bench.engines` runs it
under two interpreters to show what a DuckDB pin costs a refresh as a whole.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.report import Result, Timing, progress

SCENARIO = "offline refresh"
# The CLI without its console script, so any interpreter runs the checkout it starts in.
CLI = "import sys; sys.argv[0] = 'ratecard'; from pipelines.cli.app import app; app()"


@dataclass(frozen=True)
class Sizes:
    reps: int = 3
    sources: tuple[str, ...] = ()  # only these source ids (`--source`); empty: every bundled sample


def refresh(db: Path | str, sources: tuple[str, ...] = ()) -> tuple[float, str]:
    """One `ratecard refresh --offline` into `db` (a file, or a lake location): its wall time and its summary line."""
    start = time.perf_counter()
    only = [arg for source in sources for arg in ("--source", source)]
    done = subprocess.run(
        [sys.executable, "-c", CLI, "refresh", "--offline", "--db", str(db), *only],
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"ratecard refresh --offline exited {done.returncode}: {done.stderr[-2000:]}")
    summary = next(line for line in done.stdout.splitlines() if " landed, " in line)
    return elapsed, summary.split(";")[0]


def run(sizes: Sizes = Sizes()) -> list[Result]:
    new: list[float] = []
    again: list[float] = []
    said: dict[str, str] = {}
    for rep in range(sizes.reps):
        progress(f"{SCENARIO}: run {rep + 1} of {sizes.reps}")
        with tempfile.TemporaryDirectory(prefix="ratecard-bench-refresh-") as folder:
            db = Path(folder) / "prices.duckdb"
            seconds, said["new"] = refresh(db, sizes.sources)
            new.append(seconds)
            seconds, said["again"] = refresh(db, sizes.sources)
            again.append(seconds)
    return [
        Result(SCENARIO, "refresh --offline into a new file", Timing(tuple(new)), note=said["new"]),
        Result(SCENARIO, "refresh --offline again (unchanged)", Timing(tuple(again)), note=said["again"]),
    ]
