"""A stop signal that arrives while DuckDB opens, makes, closes, attaches or detaches a file waits for it, and still
stops the command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

from warehouse.stops_deferred import stops_deferred
from warehouse.templates import CACHE_ENV


@pytest.fixture
def sigint_raises():
    """SIGINT raises KeyboardInterrupt here, as in a terminal (a test worker may ignore it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def finish_after_a_signal(done: list[str]) -> None:
    with stops_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        done.append("the rest of the block ran")


def test_a_signal_inside_waits_for_the_block_and_then_raises(sigint_raises):
    done: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        finish_after_a_signal(done)
    assert done == ["the rest of the block ran"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_without_a_signal_the_block_ends_as_usual_and_the_handlers_are_back(sigint_raises):
    term = signal.getsignal(signal.SIGTERM)
    with stops_deferred():
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == term


def stops_survived(script: str, path: Path, env: Mapping[str, str]) -> int:
    """Run a stopping script in its own process (a hang ends it, showing every stack); how many stops it took."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), path],
        check=False,
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return int(done.stdout.split()[-1])


# Publishes a warehouse again and again, each interrupted by SIGINT at a chosen moment, then opens the file as a
# stopped refresh does to report what landed. Without the deferral an interrupted ATTACH or DETACH leaves DuckDB's
# instance behind and that opening spins forever.
PUBLISH_AND_STOP = """
import faulthandler, os, random, signal, sys, threading, time
from pathlib import Path
import pipelines  # declares the kinds' tables
from warehouse.db import connect
from warehouse.publish import publish_snapshot

db = Path(sys.argv[1])
faulthandler.dump_traceback_later(60, exit=True)  # a hung opening ends the script with every thread's stack
signal.signal(signal.SIGINT, signal.default_int_handler)
started = time.perf_counter()
publish_snapshot(db)
whole = time.perf_counter() - started
moments = random.Random(7)
stops = 0
for _ in range(40):
    timer = threading.Timer(moments.uniform(0, whole), os.kill, (os.getpid(), signal.SIGINT))
    try:  # the signal may come at any moment from here on, even before start() returns
        timer.start()
        publish_snapshot(db)
        timer.join()
        time.sleep(0.05)  # a signal that came just after the publish is taken here
    except (KeyboardInterrupt, Exception):  # the stop, or the error DuckDB raised for the interrupted query
        stops += 1
    timer.join()  # its one signal is taken: the opening below is not stopped
    with connect(db, read_only=True) as con:
        con.execute("SELECT count(*) FROM fetch_log").fetchall()
print("stops", stops)
"""


def test_stops_at_any_moment_of_a_publish_leave_the_file_openable(tmp_path: Path) -> None:
    db = tmp_path / "prices.duckdb"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, pipelines; from warehouse.db import connect\nwith connect(sys.argv[1]): pass",
            db,
        ],
        check=True,
        timeout=120,
    )
    assert stops_survived(PUBLISH_AND_STOP, db, os.environ) >= 20  # most publishes were stopped partway


# Opens new and existing files again and again, each opening interrupted by SIGINT at a chosen moment, then opens
# the file once more. Without the deferral an interrupted opening leaves DuckDB's instance behind and the next
# opening of that file spins forever.
OPEN_AND_STOP = """
import faulthandler, os, random, signal, sys, threading, time
from pathlib import Path
import pipelines  # declares the kinds' tables
from warehouse.db import connect

folder = Path(sys.argv[1])
faulthandler.dump_traceback_later(60, exit=True)  # a hung opening ends the script with every thread's stack
signal.signal(signal.SIGINT, signal.default_int_handler)
started = time.perf_counter()
with connect(folder / "first.duckdb") as con:  # also leaves the cached empty file: new files are copies
    pass
whole = time.perf_counter() - started
moments = random.Random(11)
stops = 0
for n in range(60):
    db = folder / f"{n // 2}.duckdb"  # each file is new at one opening and exists at the next
    timer = threading.Timer(moments.uniform(0, min(whole, 0.08)), os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        with connect(db, read_only=n % 4 == 3 and db.exists()) as con:
            con.execute("SELECT count(*) FROM fetch_log").fetchall()
        timer.join()
        time.sleep(0.05)
    except (KeyboardInterrupt, Exception):
        stops += 1
    timer.join()
    with connect(db) as con:
        con.execute("SELECT count(*) FROM fetch_log").fetchall()
print("stops", stops)
"""


def test_stops_at_any_moment_of_an_opening_leave_the_file_openable(tmp_path: Path) -> None:
    cache = {**os.environ, CACHE_ENV: str(tmp_path / "cache")}
    assert stops_survived(OPEN_AND_STOP, tmp_path, cache) >= 30  # most openings were stopped partway
