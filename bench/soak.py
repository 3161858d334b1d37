"""Scenario 15 — a month of faults: `make soak` (or `python -m bench.soak --days 30 --seed 1`), not in `make test`.

Thirty daily refreshes, ratecard's clock moved a day forward each time (pipelines/clock.py), on a DuckDB file and on
a DuckLake (its catalog a database of its own on the machine's PostgreSQL). Each day the samples change a little and
a fault may hit one source (bench/soak_world.py); at random the refresh is SIGKILLed at a random failpoint and run
again. After every day the invariants of bench/soak_checks.py are checked, and the change feed is sent to a local
webhook (which fails now and then). The report counts days, faults, kills and checks, all measured in this run; a
seed gives the same days, faults and kill points.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from bench import soak_checks
from bench.lake_refresh import new_lake
from bench.report import Result, Timing, progress, render_table
from bench.soak_world import FAULT_PATHS, FAULTS, Faults, World, faulty_handler
from pipelines.clock import SIMULATED_START_ENV
from pipelines.fetch.offline import pointed_at, sample_server
from pipelines.sources.file import NotifySettings, load_sources
from pipelines.sources.toml_writer import sources_toml
from warehouse.failpoints import ENV as FAILPOINT_ENV
from warehouse.target import LAKE_DATA_ENV

SCENARIO = "15 soak"
SOURCES = ("fx_ecb", "aws_trn1", "gpu_hyperstack", "gpu_lambda", "gpu_azure", "aws_pricelist")
KILL_POINTS = ("fetch", "opened", "validate", "landing", "landing@3", "landed", "publish")
FAULT_SHARE, KILL_SHARE, WEBHOOK_FAIL_SHARE = 0.5, 0.25, 0.1
FIRST_DAY = date(2027, 1, 1)
RATECARD = Path(sys.executable).parent / "ratecard"
WEBHOOK_ENV = "RATECARD_SOAK_WEBHOOK"


@dataclass
class SoakReport:
    backend: str
    days: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    kills: Counter[str] = field(default_factory=Counter)
    kills_not_reached: int = 0
    checks: int = 0
    problems: list[str] = field(default_factory=list)
    day_seconds: list[float] = field(default_factory=list)
    changes_posted: int = 0


class Webhook:
    """A local webhook that takes each POST, or fails it with a 500 while `failing` is set."""

    def __init__(self) -> None:
        self.failing = False
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(500 if hook.failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


def refresh(sources_file: Path, db: str, day: date, env: dict[str, str], kill_at: str | None, work: Path) -> bool:
    """One day's refresh (a subprocess); with `kill_at`, SIGKILLed at that failpoint and run again. Returns whether
    the kill point was reached."""
    command = [str(RATECARD), "refresh", "--sources", str(sources_file), "--warehouse", db, "--deadline", "20"]
    env = {**env, SIMULATED_START_ENV: f"{day.isoformat()}T06:00:00+00:00"}
    reached = False
    if kill_at is not None:
        marker = work / f"killed-{day.isoformat()}"
        child = subprocess.Popen(
            command,
            env={**env, FAILPOINT_ENV: f"{kill_at}:{marker}"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while child.poll() is None and not marker.exists():
            time.sleep(0.05)
        reached = marker.exists()
        if reached:
            os.kill(child.pid, signal.SIGKILL)
        child.wait()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return reached


def soak(backend: str, days: int, seed: int, work: Path) -> SoakReport:
    from pipelines.orchestration.notify import notify_changes
    from warehouse.db import connect

    rng = random.Random(f"{seed}-{backend}")
    report = SoakReport(backend)
    world = World(work / "world", rng)
    faults, webhook = Faults(), Webhook()
    server = sample_server(world.root, handler=faulty_handler(faults))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    declared = [s for s in load_sources() if s.id in SOURCES]
    sources_file = work / "sources.toml"
    sources_file.write_text(sources_toml(pointed_at(declared, f"http://127.0.0.1:{server.server_address[1]}")))
    env = {**os.environ, WEBHOOK_ENV: webhook.url, "TQDM_DISABLE": "1", "GX_ANALYTICS_ENABLED": "False"}
    settings = NotifySettings(webhook_url_env=WEBHOOK_ENV, min_change_pct=Decimal(0))
    os.environ[WEBHOOK_ENV] = webhook.url
    with warehouse(backend, work, env) as db:
        refresh(sources_file, db, FIRST_DAY - timedelta(days=1), env, None, work)
        first = notify_changes(db, settings)  # the first day's changes sent: the feed's start
        report.changes_posted += first.changes_sent if first.outcome == "posted" else 0
        for number in range(days):
            day = FIRST_DAY + timedelta(days=number)
            started = time.perf_counter()
            world.next_day(day)
            if rng.random() < FAULT_SHARE:
                fault, source = rng.choice(FAULTS), rng.choice(sorted(FAULT_PATHS))
                faults.set(FAULT_PATHS[source], fault)
                report.faults[fault] += 1
            kill_at = rng.choice(KILL_POINTS) if rng.random() < KILL_SHARE else None
            with connect(db, read_only=True) as con:
                before = soak_checks.open_fingerprints(con)
            reached = refresh(sources_file, db, day, env, kill_at, work)
            faults.clear()
            if kill_at is not None:
                report.kills[kill_at] += reached
                report.kills_not_reached += not reached
            webhook.failing = rng.random() < WEBHOOK_FAIL_SHARE
            sent = notify_changes(db, settings)
            report.changes_posted += sent.changes_sent if sent.outcome == "posted" else 0
            checked = check_day(db, day, before, report, settings, last_failed=sent.outcome == "failed")
            report.problems += [f"day {day}: {p}" for p in checked]
            report.days += 1
            report.day_seconds.append(time.perf_counter() - started)
            progress(f"soak {backend}: day {number + 1}/{days}, {len(report.problems)} problem(s)")
    server.shutdown()
    webhook.server.shutdown()
    return report


def check_day(
    db: str,
    day: date,
    before: soak_checks.Fingerprints,
    report: SoakReport,
    settings: NotifySettings,
    *,
    last_failed: bool,
) -> list[str]:
    from warehouse.db import connect

    start = datetime(day.year, day.month, day.day, 6, tzinfo=UTC)
    with connect(db, read_only=True) as con:
        after = soak_checks.open_fingerprints(con)
        outcomes = soak_checks.day_outcomes(con, start, start + timedelta(days=1))
        problems = soak_checks.lost_versions(before, after, outcomes)
        problems += soak_checks.overlapping_versions(con)
        problems += soak_checks.unaccounted_days(outcomes, list(SOURCES))
        problems += soak_checks.feed_problems(con, report.changes_posted, settings, last_failed)
    report.checks += 4
    if report.backend == "file":
        problems += soak_checks.snapshot_differences(Path(db), Path(db).with_name("prices.snapshot.duckdb"))
        report.checks += 1
    return problems


@contextmanager
def warehouse(backend: str, work: Path, env: dict[str, str]) -> Iterator[str]:
    """A new DuckDB file, or a new lake (bench.lake_refresh.new_lake) whose data path the refreshes are given too."""
    if backend == "file":
        yield str(work / "file" / "prices.duckdb")
        return
    with new_lake(work) as lake:
        env[LAKE_DATA_ENV] = os.environ[LAKE_DATA_ENV]
        yield lake


def results(report: SoakReport) -> list[Result]:
    kills = sum(report.kills.values())
    note = (
        f"faults {dict(report.faults)}; kills {dict(report.kills)} (+{report.kills_not_reached} whose point the "
        f"day's refresh never reached); {report.changes_posted} changes posted"
    )
    return [
        Result(SCENARIO, f"{report.backend}: a simulated day", Timing(tuple(report.day_seconds)), note=note),
        Result(
            SCENARIO,
            f"{report.backend}: days, faults, kills, checks, invariant failures",
            value=f"{report.days}, {sum(report.faults.values())}, {kills}, {report.checks}, {len(report.problems)}",
        ),
    ]


def run(days: int = 30, seed: int = 1, backends: tuple[str, ...] = ("file", "ducklake")) -> list[Result]:
    found: list[Result] = []
    for backend in backends:
        with tempfile.TemporaryDirectory(prefix=f"ratecard-soak-{backend}-") as tmp:
            report = soak(backend, days, seed, Path(tmp))
        for problem in report.problems:
            progress(f"soak {backend}: INVARIANT FAILED {problem}")
        found += results(report)
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", choices=("file", "ducklake", "both"), default="both")
    args = parser.parse_args(argv)
    backends = ("file", "ducklake") if args.backend == "both" else (args.backend,)
    found = run(args.days, args.seed, backends)
    print(render_table(found))
    failures = [r for r in found if r.value is not None and not r.value.endswith(", 0")]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
