"""SIGINT or SIGTERM at any phase of `refresh`, `reparse` and `backfill pricelist` ends cleanly: exit 130 / 143,
the "stopped by" summary naming every source that landed (exactly fetch_log's landed rows for the run), a details
log, no traceback and no "bug", and a next run that succeeds. The signal is sent when the process reaches a
failpoint (warehouse/failpoints.py: it writes a marker and waits), so each phase is hit for certain, not by a
sleep: fetching (a worker), validating (the checker thread), mid-landing (a transaction open), just after a commit
(the outcome not yet reported), the price-list regions, and publishing.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from tests.support.paths import ROOT

RATECARD = [sys.executable, "-m", "ratecard"]
EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}
SOME = ["--source", "fx_ecb", "--source", "aws_trn1", "--source", "gpu_hyperstack", "--source", "neuron_trainium"]


def ended(child: subprocess.Popen[str], timeout_s: float) -> tuple[str, str]:
    """The child's output once it exits. One that has not exited after `timeout_s` is sent SIGABRT, which makes
    Python print every thread's stack (children run with PYTHONFAULTHANDLER), and the test fails showing them."""
    try:
        return child.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGABRT)
        out, err = child.communicate(timeout=30)
        shown = f"it printed:\n{out[-2000:]}\nits threads:\n{err[-8000:]}"
        raise AssertionError(f"still running after {timeout_s:.0f} s; {shown}") from None


def run_until(args: list[str], failpoint: str, sig: signal.Signals, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """The command, signalled with `sig` once it reaches `failpoint`."""
    marker = tmp_path / f"reached-{failpoint.replace('@', '-')}"
    env = {**os.environ, "RATECARD_FAILPOINT": f"{failpoint}:{marker}", "COLUMNS": "250", "PYTHONFAULTHANDLER": "1"}
    child = subprocess.Popen([*RATECARD, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert child.poll() is None, f"ended before reaching {failpoint}: {child.communicate()}"
            assert time.monotonic() < deadline, f"never reached {failpoint}"
            time.sleep(0.02)
        child.send_signal(sig)
        out, err = ended(child, 60)
    finally:
        if child.poll() is None:
            child.kill()
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def landed_since(db: Path, mark: int) -> set[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT source_id FROM fetch_log WHERE outcome = 'landed' AND fetch_id > ?", [mark])
        return {row[0] for row in rows.fetchall()}


def last_fetch_id(db: Path) -> int:
    if not db.exists():
        return 0
    with duckdb.connect(str(db), read_only=True) as con:
        return int(con.execute("SELECT coalesce(max(fetch_id), 0) FROM fetch_log").fetchone()[0])  # type: ignore[index]


def next_command(*args: str) -> subprocess.CompletedProcess[str]:
    """The command after a stop, in this process: it checks what the stopped process left, and a child would
    spend seconds importing what this process already has."""
    result = CliRunner().invoke(app, list(args), terminal_width=250)
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def summary_landed(stdout: str) -> set[str]:
    return set(re.findall(r"^│ (\S+)\s+│ landed\s", stdout, re.MULTILINE))


def assert_stopped_cleanly(done: subprocess.CompletedProcess[str], sig: signal.Signals, db: Path, mark: int) -> None:
    assert done.returncode == EXIT[sig], (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    both = done.stdout + done.stderr
    assert "Traceback" not in both and "bug" not in both.lower(), done.stderr[-2000:]
    assert f"stopped by {sig.name}" in done.stdout, done.stdout[-2000:]
    assert summary_landed(done.stdout) == landed_since(db, mark), done.stdout[-3000:]
    log = re.search(r"details: (\S+\.log)", done.stdout)
    assert log and Path(log[1]).is_file(), done.stdout[-500:]
    assert all(source in Path(log[1]).read_text() for source in landed_since(db, mark))


@pytest.mark.parametrize(
    ("failpoint", "sig", "selection"),
    [
        ("fetch", signal.SIGINT, SOME),
        ("validate", signal.SIGTERM, SOME),
        ("landing@2", signal.SIGINT, SOME),  # a transaction open: rolled back, not reported
        ("landed@2", signal.SIGTERM, SOME),  # committed, not yet reported: reported from fetch_log
        ("landed@20", signal.SIGINT, []),  # among the price-list regions
        ("publish", signal.SIGTERM, SOME),  # every source landed, the snapshot copied, not renamed into place
    ],
)
def test_a_refresh_stopped_at_any_phase_reports_exactly_what_landed(tmp_path, failpoint, sig, selection):
    db = tmp_path / "prices.duckdb"
    done = run_until(["refresh", "--offline", "--db", str(db), *selection], failpoint, sig, tmp_path)
    assert_stopped_cleanly(done, sig, db, 0)
    again = next_command("refresh", "--offline", "--db", str(db), *SOME)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_refresh_stopped_before_it_fetches_says_so_and_ends_quietly(tmp_path, sig):
    db = tmp_path / "prices.duckdb"
    done = run_until(["refresh", "--offline", "--db", str(db), *SOME], "opened", sig, tmp_path)
    assert done.returncode == EXIT[sig] and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert f"stopped by {sig.name} before any source was fetched" in done.stdout, done.stdout


@contextlib.contextmanager
def default_signals_for_children() -> Iterator[None]:
    """Children start with the signals' default actions, as a terminal gives them: a test runner's worker may
    ignore SIGINT, and an ignored signal stays ignored across exec (a handled one is reset to the default)."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if saved[signal.SIGTERM] is signal.SIG_IGN:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_in_the_first_moments_ends_the_command_quietly(tmp_path, sig):
    """Before any command code runs (the interpreter importing the CLI): the console script's own handlers. At 0 s
    the interpreter may not have run a line of ratecard yet: the kernel's default then (killed by the signal), or,
    for SIGINT, Python's own handler in its startup (a KeyboardInterrupt in its frozen modules, exit 1)."""
    for delay in (0.0, 0.3, 0.6):
        with default_signals_for_children():
            child = subprocess.Popen(
                [*RATECARD, "refresh", "--offline", "--db", str(tmp_path / "prices.duckdb"), *SOME],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env={**os.environ, "PYTHONFAULTHANDLER": "1"},
            )  # fmt: skip
        time.sleep(delay)
        child.send_signal(sig)
        out, err = ended(child, 60)  # one still running after it is sent SIGABRT: its threads are shown
        if delay == 0.0 and interpreter_starting(child.returncode, err):
            continue  # the interpreter's own, before a line of ratecard: nothing of ratecard's to check
        allowed = {EXIT[sig], -sig} if delay == 0.0 else {EXIT[sig]}
        assert child.returncode in allowed, (delay, child.returncode, out[-500:], err[-500:])
        assert "Traceback" not in err and "bug" not in (out + err).lower(), (delay, err[-1000:])


RATECARD_PACKAGES = [ROOT / name for name in ("ratecard", "pipelines", "assets", "schemas", "warehouse")]


def interpreter_starting(returncode: int | None, err: str) -> bool:
    """A SIGINT that found Python still starting up: its own handler raised KeyboardInterrupt inside its bootstrap
    (frozen modules, the site-packages .pth hooks and the standard library they import, such as the editable
    install's finder), before any file of ratecard ran, and it exited 1."""
    files = re.findall(r'File "([^"]+)"', err)
    return (
        returncode == 1
        and err.rstrip().endswith("KeyboardInterrupt")
        and not any(Path(f).resolve().is_relative_to(package) for f in files for package in RATECARD_PACKAGES)
    )


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory) -> Path:
    """One offline refresh of a few sources and the price list, for the reparse and backfill stops to copy."""
    db = tmp_path_factory.mktemp("refreshed") / "prices.duckdb"
    done = subprocess.run(
        [*RATECARD, "refresh", "--offline", "--db", str(db), *SOME, "--source", "aws_pricelist"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return db


def copy(db: Path, into: Path) -> Path:
    shutil.copytree(db.parent, into)
    return into / db.name


def test_a_reparse_stopped_mid_rebuild_keeps_the_rebuilt_sources_and_rolls_back_the_rest(refreshed, tmp_path):
    db = copy(refreshed, tmp_path / "copy")
    done = run_until(["reparse", "--db", str(db)], "landing@2", signal.SIGTERM, tmp_path)
    assert done.returncode == 143, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "stopped by SIGTERM" in done.stdout, done.stdout[-2000:]
    assert re.search(r"details: \S+reparse-\S+\.log", done.stdout)
    again = next_command("reparse", "--db", str(db))
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]


@pytest.mark.parametrize(("failpoint", "sig"), [("fetch@3", signal.SIGINT), ("landing@3", signal.SIGTERM)])
def test_a_backfill_stopped_reports_the_versions_landed_and_resumes(refreshed, tmp_path, failpoint, sig):
    db = copy(refreshed, tmp_path / "copy")
    mark = last_fetch_id(db)
    done = run_until(["backfill", "pricelist", "--offline", "--db", str(db)], failpoint, sig, tmp_path)
    assert_stopped_cleanly(done, sig, db, mark)
    again = next_command("backfill", "pricelist", "--offline", "--db", str(db))
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
