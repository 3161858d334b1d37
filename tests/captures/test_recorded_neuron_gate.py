"""AWS Neuron's real gate files (tests/recorded/neuron_gate/, provenance in SOURCES.md) through the real refresh.

Each recording is served on 127.0.0.1 where the real file lives: the manifest as raw JSON, each documentation page
as the docs site serves it, a rendered page that says nothing (as a page that lost its content would) with the
recorded `.rst` behind it at `_sources/<page>.rst.txt`. Every source is fetched, read from its source text,
validated and landed into one warehouse; the torch page lands twice, its 2.29.0 version first, so its status change
is in the change feed. The tests read what landed.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.one_source import SourceOutcome, refresh_source
from pipelines.sources.file import SourceSpec, load_sources
from tests.support.localserver import LocalServer, Reply
from tests.support.paths import RECORDED

GATE = RECORDED / "neuron_gate"
SOURCES = {s.id: s for s in load_sources()}
SAYS_NOTHING = b"<html><head><title>Loading</title></head><body><div id='app'></div></body></html>"
# Landed in this order: (source, recording). The torch page twice, older first.
LANDINGS = [
    ("neuron_manifest", "n2-manifest.json"),
    ("neuron_release_status", "release-notes-index.rst"),
    ("neuron_jax_status", "frameworks-jax-index.rst"),
    ("neuron_vllm_status", "vllm-neuron-inference-overview.rst"),
    ("neuron_torch_status", "frameworks-torch-index_2026-04-09.rst"),
    ("neuron_torch_status", "frameworks-torch-index.rst"),
]


def served(server: LocalServer, source_id: str, recording: str) -> SourceSpec:
    source = SOURCES[source_id]
    path = "/" + str(source.url).split("://", 1)[1].split("/", 1)[1]
    body = (GATE / recording).read_bytes()
    if recording.endswith(".json"):
        server.set(path, Reply(body=body, content_type="application/json"))
    else:
        page = path.split("/en/latest/", 1)[1].removesuffix(".html")
        server.set(path, Reply(body=SAYS_NOTHING))
        server.set(f"/en/latest/_sources/{page}.rst.txt", Reply(body=body, content_type="text/plain"))
    return SourceSpec.model_validate(source.model_dump() | {"url": server.url(path)})


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[SourceOutcome]]:
    root = tmp_path_factory.mktemp("gate")
    db = root / "prices.duckdb"
    outcomes = []
    with LocalServer() as server, Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        for source_id, recording in LANDINGS:
            source = served(server, source_id, recording)
            outcomes.append(refresh_source(source, fetcher=fetcher, db_path=db, archive=Archive(root / "archive")))
    return db, outcomes


def rows(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_every_recording_lands_from_its_source_text_and_says_so(landed):
    db, outcomes = landed
    assert [o.status for o in outcomes] == ["landed"] * len(LANDINGS), [o.error for o in outcomes]
    for outcome, (_, recording) in zip(outcomes[1:], LANDINGS[1:], strict=True):
        assert any("has no table: read from its source text" in w for w in outcome.warnings), recording
    urls = rows(db, "SELECT DISTINCT source_url FROM neuron_support_history ORDER BY 1")
    assert all(url.endswith(".rst.txt") and "/_sources/" in url for (url,) in urls), urls


def test_the_manifest_lands_every_release_and_package_as_listed(landed):
    db, _ = landed
    ((releases, rows_, packages),) = rows(
        db, "SELECT count(DISTINCT release), count(*), count(DISTINCT package) FROM neuron_packages"
    )
    # 2,016 rows upstream; five packages are listed twice at one version for different families, one row each.
    assert (releases, rows_) == (51, 2011)
    assert packages > 40
    assert rows(
        db,
        "SELECT package_version, instances, python_versions FROM neuron_packages"
        " WHERE release = '2.32.0' AND package = 'vllm-neuron'",
    ) == [("0.24.0.1.1.0", ["trn2", "trn3"], ["3.11", "3.12", "3.13"])]
    last_neuronx = rows(
        db, "SELECT arg_max(release, release_order(release)) FROM neuron_packages WHERE package = 'torch-neuronx'"
    )
    assert last_neuronx == [("2.31.1",)]
    assert rows(
        db, "SELECT instances FROM neuron_packages WHERE release = '2.25.0' AND package = 'aws-neuronx-collectives'"
    ) == [(["inf1", "inf2", "trn1", "trn2"],)]


def test_the_guides_six_facts_come_out_of_the_real_files_each_quoted(landed):
    db, _ = landed
    assert rows(db, "SELECT release_date, dates_given FROM neuron_releases WHERE release = '2.32.0'") == [
        (__import__("datetime").date(2026, 8, 17), 1)
    ]
    support = {
        (package, source): (status, instances, from_release, quoted)
        for package, source, status, instances, from_release, quoted in rows(
            db, "SELECT package, source_id, status, instances, from_release, quoted FROM neuron_support"
        )
    }
    status, _, _, quoted = support[("TorchNeuron Native", "neuron_torch_status")]
    assert status == "recommended" and "recommended starting point for new workloads" in quoted
    status, _, from_release, quoted = support[("torch-neuronx", "neuron_torch_status")]
    assert (status, from_release) == ("not included", "2.32.0")
    assert "not included in Neuron 2.32.0 and later versions" in quoted
    status, instances, _, quoted = support[("torch-neuron", "neuron_torch_status")]
    assert (status, instances) == ("archived", ["inf1"]) and "(Inf1 only)" in quoted
    status, instances, _, quoted = support[("JAX NeuronX", "neuron_jax_status")]
    assert (status, instances) == ("beta", None) and "JAX NeuronX is currently in beta" in quoted
    status, instances, _, quoted = support[("vLLM Neuron", "neuron_vllm_status")]
    assert (status, instances) == ("beta", ["trn2", "trn3"]) and "Beta — Trn2/Trn3 only" in quoted
    assert support[("vLLM Neuron", "neuron_release_status")][0] == "beta"
    assert support[("nrtpy", "neuron_release_status")][0] == "beta"


def test_nothing_unstated_is_supported(landed):
    """A package the pages never mention (NKI, TensorFlow) has no statement; a JAX row names no family."""
    db, _ = landed
    packages = {p for (p,) in rows(db, "SELECT DISTINCT lower(package) FROM neuron_support")}
    assert not packages & {"nki", "tensorflow-neuronx", "neuronx_distributed", "neuron compiler"}
    assert rows(db, "SELECT count(*) FROM neuron_support WHERE status = 'supported'") == [(0,)]


def test_the_manifest_and_the_docs_disagree_on_torch_neuron_and_both_are_kept(landed):
    db, _ = landed
    found = rows(
        db,
        "SELECT warning, release, doc_status, manifest_versions, doc_source_id FROM neuron_gate_disagreements"
        " WHERE package = 'torch-neuron'",
    )
    assert found == [("shipped_though_archived", "2.32.0", "archived", ["1.13.1.2.11.13.0"], "neuron_torch_status")]
    # torch-neuronx is not included from 2.32.0, and the 2.32.0 manifest lists none: no disagreement.
    assert rows(db, "SELECT count(*) FROM neuron_gate_disagreements WHERE package = 'torch-neuronx'") == [(0,)]


def test_the_status_change_between_releases_is_in_the_change_feed(landed):
    db, _ = landed
    changes = rows(
        db,
        "SELECT change, family, source_id, offering, old_value, new_value FROM price_changes WHERE change = 'status'",
    )
    assert changes == [("status", "neuron_gate", "neuron_torch_status", "torch-neuronx", "supported", "not included")]
    history = rows(
        db,
        "SELECT status, valid_to IS NULL FROM neuron_support_history"
        " WHERE package = 'torch-neuronx' ORDER BY valid_from",
    )
    assert history == [("supported", False), ("not included", True)]
