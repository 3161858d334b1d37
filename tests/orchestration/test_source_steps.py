"""The Dagster source steps for real: every source fetched over HTTP from 127.0.0.1 by one multi-asset step per
group, landed into a temporary DuckDB file; failures, retries, subsets and a SIGTERM mid-run."""

from __future__ import annotations

import os
import signal
import threading
import time

import dagster as dg
import duckdb
import pytest

from pipelines.definitions import build_definitions
from pipelines.orchestration.resources import FetcherResource
from pipelines.refresh.fan_out import lands_after_units, reads_index
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from pipelines.sources.toml_writer import sources_toml
from tests.support.localserver import Reply
from tests.support.sourcefiles import write_sources_file

FAST_FETCHER = FetcherResource(max_attempts=1, connect_timeout_s=0.5, read_timeout_s=5)
RETRY_AT_ONCE = dg.RetryPolicy(max_retries=2, delay=0)


@pytest.fixture
def sources() -> list[SourceSpec]:
    """The sources the two steps refresh (conftest's site and sources file follow): the price list's region index
    is an asset of its own, tested in tests/pricelist/test_pricelist_pipeline.py, and the spot feed, which prices its
    quotes with the types the price list lands, in tests/pricelist/test_curated.py and
    tests/orchestration/test_definitions.py."""
    return [s for s in load_sources() if not reads_index(s) and not lands_after_units(s)]


def sample_body(source_id: str, sources) -> bytes:
    return sample_path(next(s for s in sources if s.id == source_id)).read_bytes()


def materialise(sources_file, db_path, selection=None, retry=RETRY_AT_ONCE) -> dg.ExecuteInProcessResult:
    """Both source steps (FX, then prices) in one in-process run, optionally a subset of the source assets."""
    defs = build_definitions(sources_file, db_path, fetcher=FAST_FETCHER, fetch_retry_policy=retry)
    steps = {defs.resolve_assets_def(dg.AssetKey(["sources", s])) for s in ("fx_ecb", "aws_trn1")}
    return dg.materialize(list(steps), selection=selection, raise_on_error=False)  # resources come bound


def materialised(result: dg.ExecuteInProcessResult) -> set[str]:
    return {e.asset_key.path[-1] for e in result.get_asset_materialization_events()}


def checks(result: dg.ExecuteInProcessResult) -> dict[str, bool]:
    return {f"{c.asset_key.path[-1]}:{c.check_name}": c.passed for c in result.get_asset_check_evaluations()}


def events_of(result: dg.ExecuteInProcessResult, event_type: dg.DagsterEventType) -> list[dg.DagsterEvent]:
    return [e for e in result.all_events if e.event_type == event_type]


def failure_text(result: dg.ExecuteInProcessResult) -> str:
    failures = events_of(result, dg.DagsterEventType.STEP_FAILURE)
    return "\n".join(e.event_specific_data.user_failure_data.description for e in failures)


def landed_ids(db_path) -> set[str]:
    with duckdb.connect(str(db_path), read_only=True) as con:
        rows = con.execute("SELECT DISTINCT source_id FROM fetch_log WHERE outcome = 'landed'").fetchall()
    return {r[0] for r in rows}


def test_every_source_materialises_with_its_checks(sources_file, db_path, sources):
    result = materialise(sources_file, db_path)
    assert result.success, failure_text(result)
    ids = {s.id for s in sources}
    assert materialised(result) == ids == landed_ids(db_path)
    found = checks(result)
    assert all(found.values()), found
    assert {key.split(":")[0] for key in found} == ids
    assert "fx_ecb:ge_fx_rates" in found and "aws_trn1:ge_instance_prices" in found
    # The price step ran after the FX step: GPU prices convert with the FX landed in this run.
    steps = [e.step_key for e in events_of(result, dg.DagsterEventType.STEP_START)]
    assert steps == ["fx_sources", "price_sources"]


def test_one_failing_source_does_not_stop_the_others(sources_file, db_path, sources, site):
    site.set("/aws/trn1.html", Reply(status=404))
    broken = {s.id for s in sources if s.sample == "aws/trn1.html"}  # the page, and its claims read from it
    assert "aws_trn1" in broken
    result = materialise(sources_file, db_path)
    assert not result.success
    assert materialised(result) == {s.id for s in sources} - broken
    assert "[aws_trn1] fetch" in failure_text(result) and "404" in failure_text(result)
    observed = {e.asset_key.path[-1] for e in result.get_asset_observation_events()}
    assert observed == broken  # settled: a 404 is not worth a retry
    assert events_of(result, dg.DagsterEventType.STEP_UP_FOR_RETRY) == []


def test_a_503_is_retried_and_only_the_unsettled_source_is_fetched_again(sources_file, db_path, sources, site):
    busy = Reply(status=503, body=b"busy", content_type="text/plain")
    inf1 = "/aws/inf1.html"  # read by one source only
    assert [s.id for s in sources if s.sample == "aws/inf1.html"] == ["aws_inf1"]
    site.set(inf1, busy, Reply(body=sample_body("aws_inf1", sources)))
    result = materialise(sources_file, db_path)
    assert result.success, failure_text(result)
    assert len(events_of(result, dg.DagsterEventType.STEP_UP_FOR_RETRY)) == 1
    assert "aws_inf1" in materialised(result) and "aws_inf1" in landed_ids(db_path)
    assert site.hits(inf1) == 2
    assert site.hits("/aws/inf2.html") == 1  # landed in the first attempt: the retry left it alone


def test_a_host_that_does_not_resolve_is_not_retried(tmp_path, db_path, sources, site):
    good = [s for s in sources if s.id != "aws_trn1"]
    trn1 = [s for s in sources if s.id == "aws_trn1"]
    # RFC 6761: a name under .invalid never resolves, so nothing leaves the machine.
    text = write_sources_file(tmp_path / "good.toml", good, site.base_url).read_text()
    text += write_sources_file(tmp_path / "dns.toml", trn1, "http://prices.invalid").read_text()
    (tmp_path / "sources.toml").write_text(text)
    result = materialise(tmp_path / "sources.toml", db_path)
    assert not result.success
    assert events_of(result, dg.DagsterEventType.STEP_UP_FOR_RETRY) == []
    assert "[aws_trn1] fetch" in failure_text(result) and "does not resolve" in failure_text(result)
    assert landed_ids(db_path) == {s.id for s in good}


def test_a_subset_refreshes_only_the_selected_source(sources_file, db_path, site):
    result = materialise(sources_file, db_path, selection=[dg.AssetKey(["sources", "aws_trn1"])])
    assert result.success, failure_text(result)
    assert materialised(result) == {"aws_trn1"}
    assert set(checks(result)) == {"aws_trn1:ge_instance_prices", "aws_trn1:ge_instance_specs"}
    assert site.hits("/aws/trn1.html") == 1 and site.hits("/aws/inf2.html") == 0


def test_a_keyed_source_without_its_key_is_observed_not_configured(tmp_path, db_path, sources, site, monkeypatch):
    monkeypatch.delenv("RATECARD_GCP_API_KEY", raising=False)
    keyed = next(s for s in sources if s.id == "gpu_gcp_tpu")
    assert keyed.headers_from_env  # pointed at the site with its key's variable kept (the offline pointing drops it)
    pointed = SourceSpec.model_validate({**keyed.model_dump(), "url": site.url(f"/{keyed.sample}")})
    others = [s for s in sources if s.id in ("fx_ecb", "aws_trn1")]  # the two steps' assets, trn1 not selected
    text = write_sources_file(tmp_path / "others.toml", others, site.base_url).read_text() + sources_toml([pointed])
    (tmp_path / "sources.toml").write_text(text)
    selection = [dg.AssetKey(["sources", "fx_ecb"]), dg.AssetKey(["sources", "gpu_gcp_tpu"])]
    result = materialise(tmp_path / "sources.toml", db_path, selection=selection)
    assert result.success, failure_text(result)  # not configured fails nothing
    assert materialised(result) == {"fx_ecb"}
    (observed,) = result.get_asset_observation_events()
    metadata = observed.event_specific_data.asset_observation.metadata
    assert observed.asset_key.path[-1] == "gpu_gcp_tpu" and metadata["outcome"].value == "not_configured"
    assert "RATECARD_GCP_API_KEY" in str(metadata["warnings"].value)
    assert site.hits(f"/{keyed.sample}") == 0


def test_sigterm_fails_the_step_without_a_retry(sources_file, db_path, site, sources):
    slow = Reply(body=sample_body("aws_trn1", sources), delay_s=3.0)
    site.set("/aws/trn1.html", slow)

    def stop_once_fetching() -> None:  # only once the step has its handler in place, i.e. is fetching
        deadline = time.monotonic() + 60
        while site.hits("/aws/trn1.html") == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGTERM)

    killer = threading.Thread(target=stop_once_fetching, daemon=True)
    killer.start()
    result = materialise(sources_file, db_path, selection=[dg.AssetKey(["sources", "aws_trn1"])])
    killer.join(timeout=10)
    assert not result.success
    assert "signal 15" in failure_text(result)
    assert events_of(result, dg.DagsterEventType.STEP_UP_FOR_RETRY) == []
    assert materialised(result) == set()
