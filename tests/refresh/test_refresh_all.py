"""Many sources at once (pipelines.refresh.many_sources): fetched concurrently within the limits, landed one at a
time in a stable order with FX first, and stoppable by SIGINT or SIGTERM with nothing half-landed."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest

import pipelines.refresh.many_sources as refresh_all_module
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.fan_out import lands_after_units, reads_index
from pipelines.refresh.many_sources import landing_order, refresh_all
from pipelines.sources.file import SourceSpec, load_sources
from tests.support.localserver import LocalServer, Reply
from tests.support.sourcefiles import media_type_of, sample_routes, write_sources_file
from warehouse.db import connect
from warehouse.files import WarehouseUnwritable
from warehouse.lock import exclusive_refresh

HOSTS = ("127.0.0.1", "127.0.0.2", "127.0.0.3")  # three loopback hosts, so the per-host limit can be seen
LATENCY_S = 0.4
RATECARD = Path(sys.executable).parent / "ratecard"


@contextlib.contextmanager
def servers(sources: list[SourceSpec], delay_s: float) -> Iterator[tuple[list[LocalServer], list[SourceSpec]]]:
    """Each source served from one of HOSTS in turn, answering after `delay_s`; yields the servers and the
    sources pointed at them."""
    with contextlib.ExitStack() as stack:
        running = [stack.enter_context(LocalServer(host)) for host in HOSTS]
        pointed = []
        for index, source in enumerate(sources):
            server = running[index % len(running)]
            for route, path in sample_routes(source):
                server.set(route, Reply(body=path.read_bytes(), content_type=media_type_of(path), delay_s=delay_s))
            url = server.url(f"/{source.sample}")
            pointed.append(SourceSpec.model_validate({**source.model_dump(), "url": url}))
        yield running, pointed


def test_sources_fetch_concurrently_within_limits_and_land_fx_first(tmp_path, monkeypatch):
    # One outcome per declared source: the price list, which becomes its regions, has tests of its own, and so has
    # the spot feed, which prices its quotes with the types the price list lands. The keyed source has its key.
    monkeypatch.setenv("RATECARD_GCP_API_KEY", "test-key")
    declared = [s for s in load_sources() if not reads_index(s) and not lands_after_units(s)]
    with servers(declared, LATENCY_S) as (running, sources), Fetcher(FetchSettings(per_host_limit=2)) as fetcher:
        phases: list[tuple[str, str]] = []
        outcomes = refresh_all(
            sources,
            db_path=tmp_path / "prices.duckdb",
            archive=Archive(tmp_path / "archive"),
            fetcher=fetcher,
            max_sources=len(declared),  # all in flight at once, so every fetch starts before the first landing
            on_phase=lambda i, p: phases.append((i, p)),
        )
    assert [o.status for o in outcomes] == ["landed"] * len(declared), [str(o.error) for o in outcomes]
    # Landing order: FX first, then the sources file's order, whatever order the answers came back in.
    assert [o.source_id for o in outcomes] == [s.id for s in landing_order(declared)]
    assert outcomes[0].source_id == "fx_ecb" and declared[0].id != "fx_ecb"
    landed_at = [i for i, (_, phase) in enumerate(phases) if phase == "landing"]
    assert [phases[i][0] for i in landed_at] == [o.source_id for o in outcomes]
    # More than one host's worth in flight at once, and never more than two on any one host.
    assert all(server.max_in_flight <= 2 for server in running), [s.max_in_flight for s in running]
    assert sum(server.max_in_flight for server in running) > 2
    # Every fetch had started before the first source landed: the network work did not wait for the writer.
    first_landing = landed_at[0]
    assert {i for i, p in phases[:first_landing] if p == "fetching"} == {s.id for s in declared}


def test_gpu_sources_convert_with_rates_landed_earlier_in_the_same_run(tmp_path):
    declared = [s for s in load_sources() if s.id in ("gpu_leadergpu", "fx_ecb")]  # LeaderGPU prices in EUR
    db = tmp_path / "prices.duckdb"
    with servers(declared, 0) as (_, sources), Fetcher() as fetcher:
        outcomes = refresh_all(
            sources, db_path=db, archive=Archive(tmp_path / "archive"), fetcher=fetcher, max_sources=4
        )
    assert [(o.source_id, o.status) for o in outcomes] == [("fx_ecb", "landed"), ("gpu_leadergpu", "landed")]
    with duckdb.connect(str(db), read_only=True) as con:
        rates = con.execute("SELECT DISTINCT usd_per_currency_unit FROM gpu_listings WHERE provider = 'LeaderGPU'")
        assert rates.fetchall() == [(Decimal("1.1840000000"),)]


def test_fetching_does_not_wait_for_the_warehouse_to_open(tmp_path, monkeypatch):
    """Opening the warehouse (a new file gets its schema) overlaps the fetches: here it cannot finish opening
    until every source has been fetched, and the refresh still lands them all."""
    declared = [s for s in load_sources() if s.kind == "aws"][:3]
    opened_after_fetches: list[bool] = []
    with servers(declared, 0) as (running, sources), Fetcher() as fetcher:

        def all_fetched() -> bool:
            return all(any(server.hits(f"/{s.sample}") for server in running) for s in declared)

        @contextlib.contextmanager
        def opening_late(path: Path | str, **kwargs: Any) -> Iterator[duckdb.DuckDBPyConnection]:
            deadline = time.monotonic() + 60
            while not all_fetched() and time.monotonic() < deadline:
                time.sleep(0.02)
            opened_after_fetches.append(all_fetched())
            with connect(path, **kwargs) as con:
                yield con

        monkeypatch.setattr(refresh_all_module, "connect", opening_late)
        outcomes = refresh_all(
            sources,
            db_path=tmp_path / "prices.duckdb",
            archive=Archive(tmp_path / "archive"),
            fetcher=fetcher,
            max_sources=4,
        )
    assert opened_after_fetches == [True]
    assert [o.status for o in outcomes] == ["landed"] * len(declared), [str(o.error) for o in outcomes]


def test_a_warehouse_that_cannot_open_fails_the_refresh_and_releases_every_worker(tmp_path):
    declared = [s for s in load_sources() if s.kind == "aws"][:3]
    not_a_file = tmp_path / "a directory"
    not_a_file.mkdir()
    with servers(declared, 0) as (_, sources), Fetcher() as fetcher:
        with pytest.raises(WarehouseUnwritable, match="is a directory"):
            refresh_all(
                sources, db_path=not_a_file, archive=Archive(tmp_path / "archive"), fetcher=fetcher, max_sources=4
            )
        # The workers fetched meanwhile; told the warehouse is not coming, none is left waiting for it.
        deadline = time.monotonic() + 30
        while any(t.name.startswith("ratecard-source-") for t in threading.enumerate()):
            assert time.monotonic() < deadline, [t.name for t in threading.enumerate()]
            time.sleep(0.05)


def slow_refresh(tmp_path: Path, server: LocalServer) -> subprocess.Popen[str]:
    """`ratecard refresh` in a child process: FX answers at once, every other source after a minute."""
    declared = load_sources()
    for source in declared:
        delay = 0 if source.id == "fx_ecb" else 60
        for route, path in sample_routes(source):
            server.set(route, Reply(body=path.read_bytes(), content_type=media_type_of(path), delay_s=delay))
    sources_file = write_sources_file(tmp_path / "sources.toml", declared, server.base_url)
    command = [str(RATECARD), "refresh", "--sources", str(sources_file), "--db", str(tmp_path / "prices.duckdb")]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def hits_of_every_slow_source(server: LocalServer) -> int:
    return sum(server.hits(f"/{s.sample}") for s in load_sources() if s.id != "fx_ecb")


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_whole_refresh_with_nothing_half_landed(tmp_path, sent, code):
    with LocalServer() as server:
        child = slow_refresh(tmp_path, server)
        try:
            deadline = time.monotonic() + 120
            # FX answered, and slow sources are in flight (two at a time: the per-host limit).
            while hits_of_every_slow_source(server) < 2 or server.hits("/fx/eurofxref-daily.xml") < 1:
                assert child.poll() is None, child.stdout.read() if child.stdout else ""
                assert time.monotonic() < deadline, "the refresh never started its fetches"
                time.sleep(0.05)
            time.sleep(3)  # FX is checked and landed meanwhile (the first GE import takes seconds)
            child.send_signal(sent)
            output, _ = child.communicate(timeout=20)  # a stop must not wait for the minute-long answers
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    assert child.returncode == code, output
    assert f"stopped by {signal.Signals(sent).name}" in output and "nothing half-landed" in output, output
    with exclusive_refresh(tmp_path / "prices.duckdb", wait_s=0):  # the lock was released
        pass
    with duckdb.connect(str(tmp_path / "prices.duckdb"), read_only=True) as con:
        logged = con.execute("SELECT source_id, outcome FROM fetch_log ORDER BY fetch_id").fetchall()
        orphans = con.execute(
            "SELECT count(*) FROM gpu_listing_history WHERE fetch_id NOT IN (SELECT fetch_id FROM fetch_log)"
        ).fetchone()
    assert logged in ([], [("fx_ecb", "landed")]), logged  # only what landed before the stop, never a part
    assert orphans == (0,)


def test_with_no_network_every_source_fails_at_once_and_the_cli_says_so(tmp_path):
    """Every host unresolvable (RFC 6761 `.invalid` never resolves; nothing leaves the machine): one line per
    source, a "no network?" hint pointing to --offline, the details in the log file it names."""
    sources_file = write_sources_file(tmp_path / "sources.toml", load_sources(), "http://prices.invalid")
    command = [str(RATECARD), "refresh", "--sources", str(sources_file), "--db", str(tmp_path / "prices.duckdb")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"0 landed, 0 unchanged, {len(load_sources())} failed" in result.stdout
    assert "no network?" in result.stdout and "--offline" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
    log = next((tmp_path / "logs").glob("refresh-*.log"))
    assert f"details: {log}" in " ".join(result.stdout.split())
    assert log.read_text().count("does not resolve") == len(load_sources())
