"""Scenario "refresh phases": where a user's wait goes in `ratecard refresh --offline`, as a process. Three
figures per run: the whole refresh, the time from the process's start to its first landing, and the time from its
last landing to the published snapshot.

The child process marks each landing and the publish by wrapping `warehouse.landing.land_batch` and
`warehouse.publish.publish_snapshot` before the CLI imports them. Those two names are the same in older checkouts,
so `--before DIR` times another checkout's code in the same run, with the same interpreter:

    python -m bench.refresh_phases --before /path/to/older/checkout
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.report import Result, Timing, progress, render_table

SCENARIO = "refresh phases"
# Runs in the child before ratecard's modules are imported: marks land in the file BENCH_MARKS names.
CHILD = """
import atexit, json, os, sys, time
marks = []
import warehouse.landing as landing, warehouse.publish as publish
land_batch, publish_snapshot = landing.land_batch, publish.publish_snapshot
def marked_land_batch(*args, **kwargs):
    result = land_batch(*args, **kwargs)
    marks.append(["landed", time.time()])
    return result
def marked_publish_snapshot(*args, **kwargs):
    result = publish_snapshot(*args, **kwargs)
    marks.append(["published", time.time()])
    return result
landing.land_batch, publish.publish_snapshot = marked_land_batch, marked_publish_snapshot
atexit.register(lambda: open(os.environ["BENCH_MARKS"], "w").write(json.dumps(marks)))
sys.argv[0] = "ratecard"
try:
    from pipelines.cli.app import app
except ImportError:  # a checkout from before pipelines/ was laid out in rooms
    from pipelines.cli import app
app()
"""


@dataclass(frozen=True)
class Phases:
    whole: float
    to_first_landing: float
    last_landing_to_publish: float
    landings: int


def refresh_phases(db: Path, code_dir: Path) -> Phases:
    """One `ratecard refresh --offline` into `db`, run on the code in `code_dir`."""
    marks_file = db.with_name("marks.json")
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, "refresh", "--offline", "--db", str(db)],
        cwd=code_dir,
        env={**os.environ, "BENCH_MARKS": str(marks_file), "PYTHONPATH": str(code_dir)},
        capture_output=True,
        text=True,
        check=False,
    )
    ended = time.time()
    if done.returncode != 0:
        raise RuntimeError(f"refresh --offline in {code_dir} exited {done.returncode}: {done.stderr[-2000:]}")
    marks = json.loads(marks_file.read_text())
    landed = [at for name, at in marks if name == "landed"]
    published = [at for name, at in marks if name == "published"]
    if not landed or not published:
        raise RuntimeError(f"refresh --offline in {code_dir}: no landing or no publish was marked ({marks})")
    return Phases(ended - started, landed[0] - started, published[-1] - landed[-1], len(landed))


def timed(code_dir: Path, reps: int) -> list[Phases]:
    runs = []
    for rep in range(reps):
        progress(f"{SCENARIO}: {code_dir} run {rep + 1} of {reps}")
        with tempfile.TemporaryDirectory(prefix="ratecard-bench-phases-") as folder:
            runs.append(refresh_phases(Path(folder) / "prices.duckdb", code_dir))
    return runs


def results(label: str, runs: list[Phases]) -> list[Result]:
    note = f"{runs[0].landings} landings"
    return [
        Result(SCENARIO, f"{label}: whole refresh --offline", Timing(tuple(r.whole for r in runs)), note=note),
        Result(SCENARIO, f"{label}: start to first landing", Timing(tuple(r.to_first_landing for r in runs))),
        Result(SCENARIO, f"{label}: last landing to publish", Timing(tuple(r.last_landing_to_publish for r in runs))),
    ]


def ratio(name: str, before: list[float], after: list[float]) -> Result:
    value = statistics.median(after) / statistics.median(before)
    return Result(SCENARIO, f"after / before: {name}", value=f"{value:.2f}x", note="below 1: faster now")


def run(reps: int = 3, before: Path | None = None) -> list[Result]:
    here = Path(__file__).resolve().parents[1]
    rows: list[Result] = []
    # Alternate the two checkouts so that a change in the machine's load falls on both alike.
    now_runs: list[Phases] = []
    before_runs: list[Phases] = []
    for _ in range(reps):
        now_runs += timed(here, 1)
        if before is not None:
            before_runs += timed(before, 1)
    rows += results("this checkout", now_runs)
    if before is not None:
        rows += results(f"before ({before.name})", before_runs)
        for name, pick in (
            ("whole refresh", lambda r: r.whole),
            ("start to first landing", lambda r: r.to_first_landing),
            ("last landing to publish", lambda r: r.last_landing_to_publish),
        ):
            rows.append(ratio(name, [pick(r) for r in before_runs], [pick(r) for r in now_runs]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another checkout to time in the same run")
    args = parser.parse_args()
    print(render_table(run(args.reps, args.before.resolve() if args.before else None)))


if __name__ == "__main__":
    main()
