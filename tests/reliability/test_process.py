"""Process faults: a refresh killed mid-landing or mid-publish, the same input twice, two refreshes at once, and
the sensor that publishes after each refresh. Children are plain `python -c` processes; every wait is bounded
and the `children` fixture kills whatever is still running."""

from __future__ import annotations

import hashlib
import itertools
import os
import signal
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from pipelines.aws.landing import PRICES, SPECS
from pipelines.definitions import build_definitions
from pipelines.gpu.landing import GPU_LISTINGS
from pipelines.orchestration.resources import FetcherResource
from pipelines.orchestration.schedules import publish_after_refresh
from pipelines.refresh.reparse import reparse_source
from pipelines.sources.toml_writer import sources_toml as toml_text
from tests.reliability.harness import HISTORY_TABLES, Matrix, rows_added, sample_text, start, wait_until
from tests.reliability.promises import LAST_GOOD_LOST, REFRESHES_OVERLAPPED, ROWS_WRONGLY_LANDED
from tests.support.localserver import Reply
from warehouse.lock import exclusive_refresh, lock_path
from warehouse.publish import publish_snapshot, snapshot_path

ROOT = Path(__file__).resolve().parents[2]
VERSIONED = (PRICES, SPECS, GPU_LISTINGS)

# refresh_source's landing path (fetch, archive, parse, prepare, land_batch) minus the Great Expectations
# suites: they run before the transaction opens, so they cannot change what a crash inside it leaves behind,
# and they would add ~6 s of start-up to the child.
LAND_ONE = """
import sys
from pipelines.adapters import parser_for, parser_version
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.kinds import kind_named
from pipelines.refresh.one_source import fetch_record
from pipelines.sources.file import SourceSpec, load_sources
from pipelines.refresh.state import WarehouseState
from warehouse.db import connect
from warehouse.landing import land_batch
from warehouse.lock import exclusive_refresh
db, archive, source_id, url = sys.argv[1:5]
spec = next(s for s in load_sources() if s.id == source_id)
spec = SourceSpec.model_validate({**spec.model_dump(), "url": url})
kind = kind_named(spec.kind)
with exclusive_refresh(db, wait_s=10), Fetcher(FetchSettings(read_timeout_s=5, max_attempts=1)) as fetcher:
    result = fetcher.fetch(source_id, url, allowed_hosts=frozenset({spec.host}))
    Archive(archive).put(result.body)
    prepared = kind.prepare(parser_for(spec.adapter)(result.body, spec), spec, result.fetched_at.date(),
                            WarehouseState(db))
    with connect(db) as con:
        land_batch(con, fetch_record(source_id, result), parser_version(spec.adapter), kind.snapshots(prepared.batch))
"""
PUBLISH = "import sys, pipelines; from warehouse.publish import publish_snapshot; publish_snapshot(sys.argv[1])"
HOLD_LOCK = """
import sys, time
from warehouse.lock import exclusive_refresh
with exclusive_refresh(sys.argv[1], wait_s=30, poll_s=0.02):
    start = time.time(); time.sleep(0.4); print(start, time.time())
"""
CLI = "from pipelines.cli.app import app; app()"


def sources_toml(path: Path, sources) -> Path:
    """A sources file declaring these sources as they are (already pointed at the local server)."""
    path.write_text(toml_text(sources))
    return path


def changed_trn1(m) -> Reply:
    """trn1.2xlarge with more host memory (a spec change, landed first) and a new on-demand price."""
    text = sample_text(m.source("aws_trn1"))
    new = text.replace("<td>8</td><td>32</td><td>0.5</td>", "<td>8</td><td>64</td><td>0.5</td>")
    new = new.replace("<td>$1.34</td>", "<td>$1.40</td>")
    assert new.count("64</td>") > text.count("64</td>") and "$1.40" in new
    return Reply(body=new.encode(), content_type="text/html; charset=utf-8")


def sigkill_at_failpoint(children, tmp: Path, name: str, code: str, *args) -> None:
    marker = tmp / f"{name}.reached"
    child = start(children, code, *args, env={"RATECARD_FAILPOINT": f"{name}:{marker}"})
    wait_until(marker.exists, child, f"failpoint {name}")
    os.kill(child.pid, signal.SIGKILL)
    assert child.wait(timeout=10) == -signal.SIGKILL


def dump(db: Path, tables=(*HISTORY_TABLES, "fetch_log", "quarantine")) -> dict[str, list[tuple]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables}


def currents(m: Matrix) -> dict[str, list[tuple]]:
    """Each source's current version."""
    return {s.id: m.current(s.id) for s in m.sources}


def duplicate_open_keys(db: Path) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return [
            (t.name, *row)
            for t in VERSIONED
            for row in con.execute(
                f"SELECT {', '.join(('source_id', *t.key_columns))}, count(*) FROM {t.name} WHERE valid_to IS NULL "
                f"GROUP BY ALL HAVING count(*) > 1"
            ).fetchall()
        ]


@pytest.mark.expect("rolled back")
@pytest.mark.promises(ROWS_WRONGLY_LANDED, LAST_GOOD_LOST)
def test_sigkill_mid_landing_then_rerun(server, tmp_path, children, scenario):
    m = Matrix(server, tmp_path, ["aws_trn1"])
    assert m.refresh()["aws_trn1"].status == "landed"
    before = dump(m.db_path)
    m.serve("aws_trn1", changed_trn1(m))
    sigkill_at_failpoint(
        children, tmp_path, "landing", LAND_ONE, m.db_path, tmp_path / "archive", "aws_trn1", m.source("aws_trn1").url
    )

    with duckdb.connect(str(m.db_path)):  # opens read-write: the WAL replays cleanly
        pass
    after = dump(m.db_path)
    scenario.measure(ROWS_WRONGLY_LANDED, sum(rows_added(before[t], after[t]) for t in HISTORY_TABLES))
    scenario.measure(LAST_GOOD_LOST, int(any(after[t] != before[t] for t in HISTORY_TABLES)))
    assert after == before, "the killed transaction left rows behind (or the crashed fetch was logged)"
    assert duplicate_open_keys(m.db_path) == []
    with exclusive_refresh(m.db_path, wait_s=0):  # the dead child's lock went with it
        pass

    rerun = m.refresh()["aws_trn1"]
    scenario.observed = (
        f"killed at landing failpoint: state as before, no duplicate open keys; "
        f"rerun {rerun.status} +{rerun.inserted}/-{rerun.closed}"
    )
    assert (rerun.status, rerun.inserted, rerun.closed) == ("landed", 2, 2), scenario.observed
    assert duplicate_open_keys(m.db_path) == []
    assert m.query("""SELECT usd_per_instance_hour::VARCHAR, valid_to IS NULL FROM aws_instance_price_history
                      WHERE instance_type = 'trn1.2xlarge' AND price_kind = 'on_demand' ORDER BY valid_from""") == [
        ("1.340000", False),
        ("1.400000", True),
    ]
    assert m.query("""SELECT count(*) FROM aws_instance_spec_history WHERE instance_type = 'trn1.2xlarge'""") == [(2,)]
    assert m.refresh()["aws_trn1"].status == "unchanged"  # landed exactly once


@pytest.mark.expect("old snapshot")
@pytest.mark.promises(LAST_GOOD_LOST)
def test_sigkill_mid_publish_keeps_previous_snapshot(server, tmp_path, children, scenario):
    m = Matrix(server, tmp_path, ["aws_trn1"])
    m.refresh()
    snapshot = publish_snapshot(m.db_path)
    assert snapshot == snapshot_path(m.db_path)
    digest = hashlib.sha256(snapshot.read_bytes()).hexdigest()
    # The view's money is DECIMAL(38, 18) since price-list rows joined it; compared at the page's 6 places.
    price_sql = (
        "SELECT max(usd_per_instance_hour)::DECIMAL(18, 6)::VARCHAR FROM aws_instance_prices"
        " WHERE instance_type = 'trn1.2xlarge'"
    )
    m.serve("aws_trn1", changed_trn1(m))
    assert m.refresh()["aws_trn1"].status == "landed"

    sigkill_at_failpoint(children, tmp_path, "publish", PUBLISH, m.db_path)
    leftovers = sorted(p.name for p in tmp_path.glob(f".{snapshot.name}.*.tmp"))
    intact = hashlib.sha256(snapshot.read_bytes()).hexdigest() == digest
    scenario.measure(LAST_GOOD_LOST, int(not intact))
    scenario.observed = f"killed at publish failpoint; snapshot intact: {intact}; leftover staging files {leftovers}"
    assert intact, "the published snapshot was touched"
    with duckdb.connect(str(snapshot), read_only=True) as con:
        assert con.execute(price_sql).fetchall() == [("1.340000",)]
    assert sorted(p.name for p in tmp_path.glob("*.snapshot.duckdb")) == [snapshot.name]  # no temp under its name
    assert all(name.startswith(".") and name.endswith(".tmp") for name in leftovers)

    assert publish_snapshot(m.db_path) == snapshot  # the next publish replaces it
    with duckdb.connect(str(snapshot), read_only=True) as con:
        assert con.execute(price_sql).fetchall() == [("1.400000",)]
    if leftovers:
        scenario.notes.append(f"stale staging files stay until removed by hand: {leftovers}")


@pytest.mark.expect("unchanged")
@pytest.mark.promises(ROWS_WRONGLY_LANDED, LAST_GOOD_LOST)
def test_same_input_twice_is_idempotent(fresh_matrix, scenario):
    matrix = fresh_matrix
    assert all(o.status == "landed" for o in matrix.refresh().values())
    first, current = dump(matrix.db_path), currents(matrix)
    again = matrix.refresh()
    second = dump(matrix.db_path)
    scenario.observed = ", ".join(f"{k}: {o.status}" for k, o in again.items())
    scenario.measure(ROWS_WRONGLY_LANDED, sum(rows_added(first[t], second[t]) for t in HISTORY_TABLES))
    scenario.measure(LAST_GOOD_LOST, sum(currents(matrix)[s] != rows for s, rows in current.items()))
    assert all(o.status == "unchanged" and o.inserted == o.closed == 0 for o in again.values()), scenario.observed
    for table in (*HISTORY_TABLES, "quarantine"):
        assert second[table] == first[table], table
    cols = "source_id, url, final_url, status, sha256, bytes, content_type, parser_version, shape_fingerprint, warnings"
    runs = matrix.query(f"SELECT {cols}, outcome, rows_inserted, rows_closed FROM fetch_log ORDER BY fetch_id")
    n = len(matrix.sources)
    assert len(runs) == 2 * n and [r[:10] for r in runs[:n]] == [r[:10] for r in runs[n:]]
    assert [r[10:] for r in runs[n:]] == [("unchanged", 0, 0)] * n


@pytest.mark.expect("identical")
@pytest.mark.promises(ROWS_WRONGLY_LANDED, LAST_GOOD_LOST)
def test_reparse_twice_is_idempotent(server, tmp_path, scenario):
    matrix = Matrix(server, tmp_path, ["fx_ecb", "aws_trn1", "gpu_hyperstack"])  # one source of each kind
    matrix.refresh()
    matrix.refresh()
    matrix.serve("aws_trn1", changed_trn1(matrix))
    assert matrix.refresh()["aws_trn1"].status == "landed"
    before, current = dump(matrix.db_path), currents(matrix)
    results = []
    for _ in range(2):
        results.append([reparse_source(s, db_path=matrix.db_path, archive=matrix.archive) for s in matrix.sources])
        results.append(dump(matrix.db_path))
    scenario.observed = "; ".join(f"{r.source_id} {r.landed}L/{r.unchanged}U/{r.quarantined}Q" for r in results[0])
    # No parser changed, so a reparse has nothing to land: any row not there before is wrong, and so is any
    # change to a source's current version.
    scenario.measure(ROWS_WRONGLY_LANDED, sum(rows_added(before[t], results[3][t]) for t in HISTORY_TABLES))
    scenario.measure(LAST_GOOD_LOST, sum(currents(matrix)[s] != rows for s, rows in current.items()))
    assert results[0] == results[2]
    for table in before:
        assert results[1][table] == results[3][table], f"{table} differs between two reparses"
        assert results[3][table] == before[table], f"{table}: reparse rebuilt a different history"
    assert duplicate_open_keys(matrix.db_path) == []


@pytest.mark.expect("refused")
@pytest.mark.promises(REFRESHES_OVERLAPPED)
def test_second_refresh_refused_while_locked(tmp_path, children, scenario):
    db = tmp_path / "prices.duckdb"
    with exclusive_refresh(db):
        cli = start(children, CLI, "refresh", "--offline", "--db", db, "--source", "aws_trn1", "--wait", "0")
        out, err = cli.communicate(timeout=60)
    scenario.observed = f"exit {cli.returncode}: {' '.join(err.split())[:200]}"
    scenario.measure(REFRESHES_OVERLAPPED, int(db.exists()))  # the refused refresh wrote while the lock was held
    assert cli.returncode == 3, (out, err)
    assert "another refresh" in err and f"pid {os.getpid()}" in err, err
    assert not db.exists(), "the refused refresh touched the warehouse"


@pytest.mark.expect("waited")
@pytest.mark.promises(REFRESHES_OVERLAPPED)
def test_second_refresh_waits_for_the_holder(tmp_path, children, scenario):
    db = tmp_path / "prices.duckdb"
    lock = str(lock_path(db).resolve())
    with exclusive_refresh(db):
        cli = start(children, CLI, "refresh", "--offline", "--db", db, "--source", "aws_trn1", "--wait", "5")

        def opened_lock() -> bool:  # the CLI has the lock file open: it is polling for the lock
            try:
                return any(os.path.realpath(fd) == lock for fd in Path(f"/proc/{cli.pid}/fd").iterdir())
            except OSError:
                return False

        wait_until(opened_lock, cli, "the CLI to reach the lock")
        time.sleep(1)
        released = datetime.now(UTC)
    out, err = cli.communicate(timeout=90)
    scenario.observed = f"exit {cli.returncode} after the holder released"
    assert cli.returncode == 0, (out, err)
    with duckdb.connect(str(db), read_only=True) as con:
        (first_fetch,) = con.execute("SELECT min(fetched_at) FROM fetch_log").fetchone()
    scenario.measure(REFRESHES_OVERLAPPED, int(first_fetch < released))
    assert first_fetch >= released, "the waiting refresh wrote while the lock was held"
    assert snapshot_path(db).exists()


@pytest.mark.expect("serialised")
@pytest.mark.promises(REFRESHES_OVERLAPPED)
def test_exclusive_refresh_serialises_processes_and_threads(tmp_path, children, scenario):
    db = tmp_path / "prices.duckdb"
    procs = [start(children, HOLD_LOCK, db) for _ in range(3)]
    spans = [tuple(map(float, p.communicate(timeout=60)[0].split())) for p in procs]
    assert all(p.returncode == 0 for p in procs)

    def in_thread() -> None:
        with exclusive_refresh(db, wait_s=30, poll_s=0.02):
            begun = time.time()
            time.sleep(0.4)
            spans_t.append((begun, time.time()))

    spans_t: list[tuple[float, float]] = []
    threads = [threading.Thread(target=in_thread) for _ in range(3)]
    for thread in threads:
        thread.start()
        time.sleep(0.05)  # the later threads ask while the first holds the lock
    for thread in threads:
        thread.join(timeout=30)
    overlaps = {}
    for kind, unsorted in (("processes", spans), ("threads", spans_t)):
        found = sorted(unsorted)
        overlaps[kind] = sum(later[0] < earlier[1] for earlier, later in itertools.pairwise(found))
        assert len(found) == 3, (kind, found)
    scenario.observed = f"overlapping critical sections: {overlaps}"
    scenario.measure(REFRESHES_OVERLAPPED, sum(overlaps.values()))
    assert overlaps == {"processes": 0, "threads": 0}, scenario.observed


@pytest.mark.expect("run request")
@pytest.mark.promises  # pass/fail only: one RunRequest per finished refresh is checked as it happens
def test_publish_sensor_once_per_finished_refresh(server, tmp_path, scenario):
    m = Matrix(server, tmp_path, ["aws_trn1"])
    sources_file = sources_toml(tmp_path / "sources.toml", [m.source("aws_trn1")])
    defs = build_definitions(
        sources_file,
        m.db_path,
        fetch_retry_policy=dg.RetryPolicy(max_retries=0),
        fetcher=FetcherResource(max_attempts=1, read_timeout_s=5),
    )
    instance = dg.DagsterInstance.ephemeral()
    assert isinstance(publish_after_refresh(dg.build_sensor_context(instance=instance)), dg.SkipReason)

    seen = []
    cursor = None
    for reply in (None, Reply(status=404)):  # a refresh that lands, then one that fails
        if reply:
            m.serve("aws_trn1", reply)
        run = defs.resolve_job_def("refresh_prices").execute_in_process(instance=instance, raise_on_error=False)
        context = dg.build_sensor_context(instance=instance, cursor=cursor)
        request = publish_after_refresh(context)
        assert isinstance(request, dg.RunRequest), request
        assert request.run_key == run.run_id and context.cursor == run.run_id
        seen.append(run.success)
        cursor = context.cursor
        again = publish_after_refresh(dg.build_sensor_context(instance=instance, cursor=cursor))
        assert isinstance(again, dg.SkipReason), again
    scenario.observed = f"one RunRequest per finished refresh (success={seen}), then SkipReason"
    assert seen == [True, False]
