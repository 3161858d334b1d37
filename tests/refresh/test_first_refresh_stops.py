"""A stop at any moment of a new database's first refresh leaves a database that the next refresh completes.

The schema of a new file is made whole beside it and only then put in place (warehouse.db.create_file), and a stop
that comes while a file is opened or made waits until that is done (warehouse.stops_deferred): a Ctrl-C while the
schema was being applied once left a WAL that DuckDB could not replay, and every later command ended in an
INTERNAL error. Signalled at a failpoint inside the schema (for certain) and at delays across the first seconds
(wherever the refresh happens to be then, the import of the CLI included).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.refresh.test_stop_signals import RATECARD, default_signals_for_children, ended, next_command, run_until
from warehouse.db import connect
from warehouse.schema import applied_schema, schema_sha256
from warehouse.templates import CACHE_ENV

ONE_SOURCE = ["--source", "fx_ecb"]


def refresh(db: Path) -> list[str]:
    return ["refresh", "--offline", "--db", str(db), *ONE_SOURCE]


def assert_next_refresh_completes(db: Path, stopped: subprocess.CompletedProcess[str]) -> None:
    both = stopped.stdout + stopped.stderr
    assert "Traceback" not in both and "bug" not in both.lower(), both[-2000:]
    again = next_command(*refresh(db))
    assert again.returncode == 0, (stopped.returncode, again.stdout[-2000:], again.stderr[-2000:])
    assert not list(db.parent.glob(f".{db.name}.new-*")), "the file being built was left behind"


def assert_stopped_with_a_whole_empty_file(db: Path, stopped: subprocess.CompletedProcess[str]) -> None:
    assert stopped.returncode == 130, stopped.stdout[-2000:] + stopped.stderr[-2000:]
    assert "stopped by SIGINT" in stopped.stdout and "nothing landed" in stopped.stdout, stopped.stdout[-2000:]
    with connect(db, read_only=True) as con:  # the stop waited for the schema: the file is whole, and empty
        assert applied_schema(con) == [(schema_sha256(),)]
        assert con.execute("SELECT count(*) FROM fetch_log").fetchone() == (0,)


def test_a_stop_while_the_schema_is_applied_waits_for_a_whole_file(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))  # no cached empty file: the schema is applied
    db = tmp_path / "prices.duckdb"
    stopped = run_until(refresh(db), "schema-file@2", signal.SIGINT, tmp_path)
    assert_stopped_with_a_whole_empty_file(db, stopped)
    assert_next_refresh_completes(db, stopped)


def test_a_stop_while_the_cached_empty_file_is_copied_waits_for_a_whole_file(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    with connect(tmp_path / "first.duckdb"):  # leaves the cached empty file behind
        pass
    db = tmp_path / "prices.duckdb"
    stopped = run_until(refresh(db), "template-copied", signal.SIGINT, tmp_path)
    assert_stopped_with_a_whole_empty_file(db, stopped)
    assert_next_refresh_completes(db, stopped)


@pytest.mark.parametrize("delay", [0.5, 1.2, 2.0, 2.8, 3.8, 5.0])
def test_a_ctrl_c_at_any_moment_of_the_first_refresh_leaves_a_usable_database(tmp_path, delay):
    db = tmp_path / "prices.duckdb"
    with default_signals_for_children():  # as a terminal starts it: SIGINT not ignored
        child = subprocess.Popen(
            [*RATECARD, *refresh(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},  # a child that does not end shows its threads (ended)
        )
    time.sleep(delay)
    child.send_signal(signal.SIGINT)  # a refresh already done (exit 0) is fine: nothing was left to stop
    out, err = ended(child, 120)
    stopped = subprocess.CompletedProcess(child.args, child.returncode, out, err)
    # A signal that comes once the summary is out may meet the interpreter's finalisation, which has put SIGINT's
    # default action back: the process then dies of it (-2), its work done. Anywhere earlier it must stop cleanly.
    finished = "details: " in out and "stopped by" not in out  # the summary's last line, of a refresh not stopped
    assert child.returncode in (0, 130) or (finished and child.returncode == -signal.SIGINT), (
        delay,
        child.returncode,
        out[-1000:],
        err[-1000:],
    )
    assert_next_refresh_completes(db, stopped)
