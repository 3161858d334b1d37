"""The shape rule for JSON and XML sources, end to end: RunPod's GraphQL answer and the ECB XML served over HTTP
on 127.0.0.1, refreshed through the real path into a temporary DuckDB file. A changed shape (a key the adapter
reads renamed, an element it reads renamed) lands with a warning by default and is quarantined when the source
says so, leaving the last good version current."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher
from pipelines.refresh.one_source import SourceOutcome, refresh_source
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from tests.support.localserver import LocalServer, Reply

MEDIA_TYPES = {".json": "application/json", ".xml": "text/xml"}


class Site:
    """The declared sources, each served at its sample path, and a warehouse in a temp folder."""

    def __init__(self, server: LocalServer, tmp: Path) -> None:
        self.server = server
        self.db_path = tmp / "prices.duckdb"
        self.archive = Archive(tmp / "archive")
        self.declared = {s.id: s for s in load_sources()}

    def source(self, source_id: str, **drift: str) -> SourceSpec:
        declared = self.declared[source_id]
        fields = {**declared.model_dump(), "url": self.server.url(f"/{declared.sample}")}
        return SourceSpec.model_validate({**fields, "drift": {**declared.drift.model_dump(), **drift}})

    def sample(self, source_id: str) -> bytes:
        return sample_path(self.declared[source_id]).read_bytes()

    def serve(self, source_id: str, body: bytes) -> None:
        sample = self.declared[source_id].sample
        self.server.set(f"/{sample}", Reply(body=body, content_type=MEDIA_TYPES[Path(sample).suffix]))

    def refresh(self, source: SourceSpec) -> SourceOutcome:
        with Fetcher() as fetcher:
            return refresh_source(source, fetcher=fetcher, db_path=self.db_path, archive=self.archive)

    def query(self, sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
        with duckdb.connect(str(self.db_path), read_only=True) as con:
            return con.execute(sql, params or []).fetchall()

    def logged(self, fetch_id: int | None) -> tuple[object, ...]:
        return self.query("SELECT outcome, shape_fingerprint, warnings FROM fetch_log WHERE fetch_id = ?", [fetch_id])[
            0
        ]


@pytest.fixture
def site(tmp_path: Path) -> Site:
    with LocalServer() as server:
        yield Site(server, tmp_path)


def runpod_without_lowest_price(site: Site) -> bytes:
    """The RunPod answer with `lowestPrice` renamed in every type: an optional key the adapter reads, gone."""
    document = json.loads(site.sample("gpu_runpod"))
    document["data"]["gpuTypes"] = [
        {("lowestPriceV2" if k == "lowestPrice" else k): v for k, v in t.items()} for t in document["data"]["gpuTypes"]
    ]
    return json.dumps(document).encode()


def ecb_with_the_day_renamed(site: Site) -> bytes:
    """The ECB file with the dated `Cube` renamed `Day`: the same rates, found by meaning, in a new shape."""
    sample = site.sample("fx_ecb")
    renamed = sample.replace(b"<Cube time=", b"<Day time=").replace(b"</Cube>", b"</Day>", 1)
    assert renamed != sample
    return renamed


def land_the_samples(site: Site, *sources: SourceSpec) -> dict[str, tuple[object, ...]]:
    """Every source landed from its sample, with a shape and no drift warning: the baseline to drift from."""
    logged = {}
    for source in sources:
        site.serve(source.id, site.sample(source.id))
        first = site.refresh(source)
        assert first.status == "landed" and drift_warnings(first) == [], (first.status, first.error, first.warnings)
        logged[source.id] = site.logged(first.fetch_id)
        assert logged[source.id][1]  # the shape fingerprint is recorded
    return logged


def drift_warnings(outcome: SourceOutcome) -> list[str]:
    return [w for w in outcome.warnings if " drift: " in w]


def shape_warning(outcome: SourceOutcome) -> str:
    (warning,) = drift_warnings(outcome)
    assert "table shape changed" in warning
    return warning


def runpod_stock(site: Site) -> set[object]:
    return {
        row[0]
        for row in site.query("""SELECT DISTINCT stock_status FROM gpu_listing_history
                                            WHERE source_id = 'gpu_runpod' AND valid_to IS NULL""")
    }


def test_runpod_with_a_renamed_optional_key_lands_with_a_shape_warning(site: Site) -> None:
    fx, runpod = site.source("fx_ecb"), site.source("gpu_runpod")
    assert runpod.drift.on_shape_change == "warn"
    first = land_the_samples(site, fx, runpod)["gpu_runpod"]
    assert "in_stock" in runpod_stock(site)

    site.serve("gpu_runpod", runpod_without_lowest_price(site))
    outcome = site.refresh(runpod)

    assert outcome.status == "landed", outcome.error
    warning = shape_warning(outcome)
    status, shape, warnings = site.logged(outcome.fetch_id)
    assert status == "landed" and shape != first[1] and warning in warnings
    assert warning.startswith("[gpu_runpod] drift:") and f"{first[1]} -> {shape}" in warning
    assert warning.endswith("(action warn)")
    assert runpod_stock(site) == {"unknown"}  # stock status was only read from the renamed key


def test_runpod_shape_change_set_to_quarantine_keeps_the_last_good_version(site: Site) -> None:
    fx, runpod = site.source("fx_ecb"), site.source("gpu_runpod", on_shape_change="quarantine")
    first = land_the_samples(site, fx, runpod)["gpu_runpod"]
    stock_before = runpod_stock(site)

    site.serve("gpu_runpod", runpod_without_lowest_price(site))
    outcome = site.refresh(runpod)

    assert outcome.status == "quarantined"
    assert "table shape changed" in str(outcome.error) and "action quarantine" in str(outcome.error)
    assert runpod_stock(site) == stock_before
    assert site.query("SELECT count(*) FROM quarantine WHERE fetch_id = ?", [outcome.fetch_id]) == [(1,)]
    # The quarantined shape is not the baseline: the sample served again compares with the landed one.
    site.serve("gpu_runpod", site.sample("gpu_runpod"))
    again = site.refresh(runpod)
    assert again.status == "unchanged" and drift_warnings(again) == [] and site.logged(again.fetch_id)[1] == first[1]


def test_the_ecb_file_in_a_changed_shape_warns(site: Site) -> None:
    fx = site.source("fx_ecb")
    first = land_the_samples(site, fx)["fx_ecb"]
    rates = site.query("SELECT currency, rate_date, units_per_eur FROM fx_rates ORDER BY ALL")

    site.serve("fx_ecb", ecb_with_the_day_renamed(site))
    outcome = site.refresh(fx)

    assert outcome.status == "unchanged", outcome.error  # the same rates, already known
    warning = shape_warning(outcome)
    status, shape, warnings = site.logged(outcome.fetch_id)
    assert status == "unchanged" and shape != first[1] and warning in warnings
    assert warning.startswith("[fx_ecb] drift:") and f"{first[1]} -> {shape}" in warning
    assert site.query("SELECT currency, rate_date, units_per_eur FROM fx_rates ORDER BY ALL") == rates


def test_the_ecb_shape_change_set_to_quarantine_is_quarantined(site: Site) -> None:
    fx = site.source("fx_ecb", on_shape_change="quarantine")
    land_the_samples(site, fx)

    site.serve("fx_ecb", ecb_with_the_day_renamed(site))
    outcome = site.refresh(fx)

    assert outcome.status == "quarantined"
    assert "[fx_ecb] drift: table shape changed" in str(outcome.error)
    assert site.logged(outcome.fetch_id)[0] == "quarantined"
