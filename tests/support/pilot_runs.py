"""`ratecard pilot` as the pilot tests run it: in this process through typer's runner, or in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.pilots.records import PILOT_COLUMNS
from tests.support.paths import PILOT_SAMPLES

RATECARD = [sys.executable, "-m", "ratecard"]
EXAMPLE = PILOT_SAMPLES / "example.csv"
SOURCES = [
    "aws_trn1",
    "aws_inf1",
    "aws_inf2",
    "aws_capacity_blocks",
    "gpu_hyperstack",
    "gpu_replicate",
    "gpu_runpod_serverless",
    "gpu_azure",
    "gpu_gcp",
    "gpu_gcp_tpu",
]
SIX = Decimal("0.000001")
HEADER = ",".join(PILOT_COLUMNS)
GOOD_ROW = "w,Hyperstack,NVIDIA H100 SXM,,on_demand,tokens,2400000,yes,2026-09-20,"


Finished = subprocess.CompletedProcess[str]
Run = Callable[..., Finished]


def ratecard(*args: str | Path) -> Finished:
    """The command run in this process, its outcome as a finished process's (each child would spend seconds
    importing what this process has already imported)."""
    result = CliRunner().invoke(app, list(map(str, args)))
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def ratecard_process(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RATECARD, *map(str, args)], capture_output=True, text=True, timeout=300, check=False)


def rows(db: Path, query: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(query).fetchall()


def pilot_rows(db: Path) -> int:
    return int(rows(db, "SELECT count(*) FROM pilot_result_history")[0][0])  # type: ignore[call-overload]


def plan(db: Path, workload: str, one_time: str, maintenance: str, volume: str, lifetime: str) -> None:
    done = ratecard(
        "pilot", "plan", "--workload", workload, "--provider", "Hyperstack", "--baseline", "NVIDIA H100 SXM",
        "--one-time-cost", one_time, "--monthly-maintenance", maintenance, "--monthly-volume", volume,
        "--lifetime-months", lifetime, "--db", db,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def add_trn1_pilot(
    db: Path,
    unit: str,
    units_per_hour: str,
    *more: str,
    run: Callable[..., subprocess.CompletedProcess[str]] = ratecard,
) -> subprocess.CompletedProcess[str]:
    return run(
        "pilot", "add", "--workload", "w", "--offering", "trn1.2xlarge", "--unit", unit,
        "--units-per-hour", units_per_hour, "--passed", "--measured-on", "2026-09-01", *more, "--db", db,
    )  # fmt: skip


def half_up(value: Decimal) -> Decimal:
    return value.quantize(SIX, rounding=ROUND_HALF_UP)


TRN1 = "w,,trn1.2xlarge,,on_demand,tokens,1500000,yes,2026-09-23,"
H100 = "w,Hyperstack,NVIDIA H100 SXM,,on_demand,tokens,2400000,yes,2026-09-20,"
RUNPOD_H100 = "serverless pool 80 GB (H100 PRO): H100 PRO"


def traffic(db: Path, monthly: str, hours: str, peak: str, *more: str) -> None:
    done = ratecard(
        "pilot", "traffic", "--workload", "w", "--monthly-units", monthly, "--active-hours-per-day", hours,
        "--peak-units-per-hour", peak, *more, "--db", db,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
