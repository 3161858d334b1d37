"""A host that accepts connections and never answers cannot hold a refresh: after a few timeouts in a row its
remaining sources fail at once, named; past the refresh's deadline outstanding fetches are cut and reported;
what landed before either stays landed. Every source of the bundled sources file is pointed at a real socket on
127.0.0.1 that accepts and stays silent. Timeouts are scaled down here (the defaults' wall time, about a minute
for every source, is measured by bench/hanging_host.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import duckdb

from bench.silent_host import SilentHost
from pipelines.fetch.offline import pointed_at, serve_directory
from pipelines.refresh.one_source import SourceOutcome
from pipelines.sources.file import SourceSpec, load_sources
from pipelines.sources.toml_writer import sources_toml
from tests.support.refreshing import refreshed_in

FETCHED = [s for s in load_sources() if not s.adapter_info.reads_files]
FX = [s for s in FETCHED if s.adapter == "fx_ecb"]
QUICK = {"connect_timeout_s": 0.5, "read_timeout_s": 0.5, "backoff_initial_s": 0.0, "backoff_max_s": 0.0}


def refresh(sources: list[SourceSpec], tmp_path: Path, **settings: float) -> list[SourceOutcome]:
    return refreshed_in(tmp_path, sources, **settings)


def failed_causes(outcomes: list[SourceOutcome]) -> dict[str, str | None]:
    return {o.source_id: getattr(o.error, "cause", None) for o in outcomes if o.status == "fetch_failed"}


def logged(tmp_path: Path) -> dict[str, str]:
    with duckdb.connect(str(tmp_path / "prices.duckdb"), read_only=True) as con:
        return dict(con.execute("SELECT source_id, outcome FROM fetch_log").fetchall())


def test_a_tripped_host_fails_its_remaining_sources_at_once_each_named(tmp_path):
    assert len(FETCHED) > 20  # the whole bundled file, not a handful
    with SilentHost() as host:
        outcomes = refresh(pointed_at(FETCHED, host.base_url), tmp_path, **QUICK, max_attempts=4)
        accepted = host.accepted
    causes = failed_causes(outcomes)
    assert set(causes) == {s.id for s in FETCHED}  # every source reported, every one failed
    # 3 timeouts in a row trip the host: the 2 requests in flight then (per_host 2) and their retries are all
    # the host ever sees, instead of 4 attempts of every source.
    assert accepted <= 3 + 2, accepted
    assert sum(cause == "timeout" for cause in causes.values()) <= 2 + 1
    tripped = [o for o in outcomes if failed_causes([o]).get(o.source_id) == "host-down"]
    assert len(tripped) >= len(FETCHED) - 3
    assert all(re.search(r"host 127.0.0.1:\d+ tripped after [34] timeouts in a row", str(o.error)) for o in tripped)
    assert all("tried again on the next run" in str(o.error) for o in tripped)
    assert set(logged(tmp_path).items()) == {(s.id, "fetch_failed") for s in FETCHED}


def test_a_host_that_answers_in_between_is_not_tripped(tmp_path):
    """Timeouts on one host do not trip another: the samples' host lands while the silent one is tripped."""
    with SilentHost() as host, serve_directory() as samples:
        fx_and_hanging = pointed_at(FX, samples) + pointed_at([s for s in FETCHED if s not in FX][:6], host.base_url)
        outcomes = refresh(fx_and_hanging, tmp_path, **QUICK, max_attempts=2)
    statuses = {o.source_id: o.status for o in outcomes}
    assert all(statuses[s.id] == "landed" for s in FX), statuses
    assert set(failed_causes(outcomes).values()) <= {"timeout", "host-down"}
    assert "host-down" in failed_causes(outcomes).values()


def test_past_the_deadline_outstanding_fetches_are_cut_and_what_landed_stays(tmp_path):
    with SilentHost() as host, serve_directory() as samples:
        sources = pointed_at(FX, samples) + pointed_at([s for s in FETCHED if s not in FX], host.base_url)
        # Read timeouts far longer than the deadline, and the host never trips: only the deadline ends this.
        outcomes = refresh(sources, tmp_path, read_timeout_s=60.0, deadline_s=3.0, trip_after_timeouts=100)
    causes = failed_causes(outcomes)
    assert {o.source_id for o in outcomes} == {s.id for s in sources}
    assert all(o.status == "landed" for o in outcomes if o.source_id in {s.id for s in FX})
    assert set(causes) == {s.id for s in sources} - {s.id for s in FX}
    assert set(causes.values()) == {"deadline"}, causes
    messages = [str(o.error) for o in outcomes if o.source_id in causes]
    assert all("the refresh's deadline of 3 s passed" in m for m in messages)
    assert any("cut off (ReadTimeout" in m for m in messages)  # in flight when it passed
    assert any("not fetched" in m for m in messages)  # waiting for their turn, or not yet begun
    assert logged(tmp_path)[FX[0].id] == "landed"


def test_the_cli_reports_every_source_of_a_hanging_host_and_exits_1(tmp_path):
    sources_file = tmp_path / "hanging.toml"
    with SilentHost() as host:
        sources_file.write_text(sources_toml(pointed_at(FETCHED, host.base_url)))
        done = subprocess.run(
            [sys.executable, "-m", "ratecard", "refresh", "--sources", str(sources_file),
             "--db", str(tmp_path / "prices.duckdb"), "--deadline", "2"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "bug" not in done.stderr.lower(), done.stderr
    output = " ".join(done.stdout.split())
    assert all(s.id in output for s in FETCHED), output
    assert "deadline" in output
    log = logged(tmp_path)  # the in-repo reference files still land: they need no host
    assert {log[s.id] for s in FETCHED} == {"fetch_failed"}
