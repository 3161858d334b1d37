"""A source that needs a key (Google's Cloud Billing Catalog, `headers_from_env`) through a whole refresh: with its
variable unset it is not configured, left out without a request and failing nothing while the others land; with the
variable set every page is asked for with the key, and the answer lands; a key the API refuses, or an empty answer,
fails that source alone, named, its last good prices kept."""

from __future__ import annotations

import uuid
from decimal import Decimal
from pathlib import Path

import duckdb

from pipelines.cli.refresh_report import RefreshReport, closing_line, detail
from pipelines.refresh.one_source import SourceOutcome
from pipelines.sources.file import SourceSpec, load_sources
from tests.support.localserver import LocalServer, Reply
from tests.support.refreshing import refreshed_in
from tests.support.sourcefiles import sample_routes, serve_samples

IDS = ("fx_ecb", "gpu_oci", "gpu_gcp_tpu")
KEY_ENV = "RATECARD_GCP_API_KEY"


def served(server: LocalServer) -> list[SourceSpec]:
    """The sources at `server`, each keeping its headers_from_env (the offline pointing drops them)."""
    declared = [s for s in load_sources() if s.id in IDS]
    serve_samples(server, declared)
    return [SourceSpec.model_validate({**s.model_dump(), "url": server.url(f"/{s.sample}")}) for s in declared]


def refreshed(sources: list[SourceSpec], tmp_path: Path) -> list[SourceOutcome]:
    return refreshed_in(tmp_path, sources, max_sources=3, max_attempts=1)


def test_a_keyed_source_is_left_out_without_its_key_and_lands_with_it(tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    with LocalServer() as server:
        sources = served(server)
        tpu = next(s for s in sources if s.id == "gpu_gcp_tpu")
        routes = [route for route, _ in sample_routes(tpu)]
        assert len(routes) == 2  # the sample's two pages, the second asked for by its token

        without = {o.source_id: o for o in refreshed(sources, tmp_path)}
        left_out = without["gpu_gcp_tpu"]
        assert (left_out.status, left_out.error, left_out.ok) == ("not_configured", None, True)
        assert f"environment variable {KEY_ENV} (for header X-Goog-Api-Key) is not set" in left_out.warnings[0]
        assert (without["fx_ecb"].status, without["gpu_oci"].status) == ("landed", "landed")
        assert [server.hits(route) for route in routes] == [0, 0]  # nothing asked without the key
        report = RefreshReport(list(without.values()), {}, published="snapshot")
        assert report.exit_code == 0 and "1 not configured (left out)" in closing_line(report)
        assert "is not set" in detail(left_out)

        key = f"k-{uuid.uuid4().hex}"
        monkeypatch.setenv(KEY_ENV, key)
        with_key = {o.source_id: o for o in refreshed(sources, tmp_path)}
        sent = [h.get("X-Goog-Api-Key") for path, h in server.requests if path.split("?")[0] == routes[0]]
    assert with_key["gpu_gcp_tpu"].status == "landed", with_key["gpu_gcp_tpu"].error
    assert sent == [key, key]  # both pages, each with the key
    with duckdb.connect(str(tmp_path / "prices.duckdb"), read_only=True) as con:
        logged = con.execute("SELECT outcome, url FROM fetch_log WHERE source_id = 'gpu_gcp_tpu'").fetchall()
        prices = con.execute(
            """SELECT accelerator_model, price_kind, region, usd_per_accelerator_hour FROM accelerator_hour_prices
               WHERE source_id = 'gpu_gcp_tpu' AND region = 'us-east5' ORDER BY ALL"""
        ).fetchall()
        # Each figure traces to its fetch: the answer's URL, time, content hash and parser.
        traced = con.execute(
            """SELECT DISTINCT p.accelerator_vendor, p.billed_unit, p.source_url = f.url, p.fetched_at = f.fetched_at,
                      p.content_sha256 = f.sha256, p.parser_version
               FROM accelerator_hour_prices AS p JOIN fetch_log AS f USING (source_id)
               WHERE p.source_id = 'gpu_gcp_tpu'"""
        ).fetchall()
    assert traced == [("Google", "chip-hour", True, True, True, "gpu_gcp_billing_catalog/1.0")]
    assert [outcome for outcome, _ in logged] == ["landed"]  # the run without the key logged nothing
    assert key not in str(logged)
    assert (with_key["fx_ecb"].status, with_key["gpu_oci"].status) == ("unchanged", "unchanged")
    assert [(m, k, p) for m, k, _r, p in prices] == [
        ("TPU v6e", "committed_use_1y", Decimal("1.89")),
        ("TPU v6e", "committed_use_3y", Decimal("1.22")),
        ("TPU v6e", "dws_flex_start", Decimal("1.35")),
        ("TPU v6e", "on_demand", Decimal("2.7")),
        ("TPU7x", "on_demand", Decimal(12)),
    ]


def test_a_refused_key_or_an_empty_answer_fails_the_source_alone_and_keeps_its_prices(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "k-expired")
    with LocalServer() as server:
        sources = served(server)
        first = next(s for s in sources if s.id == "gpu_gcp_tpu").url.path
        assert {o.source_id: o.status for o in refreshed(sources, tmp_path)} == dict.fromkeys(IDS, "landed")
        kept = current_tpu(tmp_path)

        expired = b'{"error": {"code": 403, "message": "API key expired.", "status": "PERMISSION_DENIED"}}'
        server.set(first, Reply(status=403, body=expired, content_type="application/json"))
        refused = {o.source_id: o for o in refreshed(sources, tmp_path)}
        server.set(first, Reply(body=b'{"skus": [], "nextPageToken": ""}', content_type="application/json"))
        empty = {o.source_id: o for o in refreshed(sources, tmp_path)}
    assert refused["gpu_gcp_tpu"].status == "fetch_failed"
    assert "[gpu_gcp_tpu] fetch: page 1 of the answer" in str(refused["gpu_gcp_tpu"].error)
    assert "403" in str(refused["gpu_gcp_tpu"].error)
    assert empty["gpu_gcp_tpu"].status == "quarantined"
    assert "[gpu_gcp_tpu] parse: no TPU price per chip-hour in the answer" in str(empty["gpu_gcp_tpu"].error)
    for outcomes in (refused, empty):  # the others as ever
        assert (outcomes["fx_ecb"].status, outcomes["gpu_oci"].status) == ("unchanged", "unchanged")
    assert current_tpu(tmp_path) == kept and len(kept) == 12


def current_tpu(tmp_path: Path) -> list[tuple]:
    with duckdb.connect(str(tmp_path / "prices.duckdb"), read_only=True) as con:
        return con.execute(
            """SELECT listing, price_kind, region, usd_per_gpu_hour, fetch_id FROM gpu_listing_history
               WHERE source_id = 'gpu_gcp_tpu' AND valid_to IS NULL ORDER BY ALL"""
        ).fetchall()
