"""Accelerator specifications end to end: Neuron pages and the Trn3 product page served over HTTP on 127.0.0.1,
refreshed with `refresh_source` into a temporary DuckDB file, read back through the views; the in-repo launch
dates landed through the same check-and-land path; a page whose figures are gone refused while the last good
version stays current."""

from __future__ import annotations

import hashlib
import shutil
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.one_source import SourceOutcome, refresh_source
from pipelines.refresh.references import REFERENCE_FILES, REPO_ROOT, land_reference
from pipelines.sources.file import SourceSpec, sample_path
from tests.support.localserver import LocalServer, Reply

USED = (
    "neuron_trainium2",
    "neuron_trainium3",
    "neuron_trn2_arch",
    "neuron_trn3_arch",
    "aws_trn3",
    "aws_trn2_claims",
    "neuron_sdk_release",
    "neuron_inf2_arch",
)


class Specs:
    def __init__(self, site: LocalServer, declared: list[SourceSpec], tmp_path: Path):
        self.site = site
        self.db_path = tmp_path / "warehouse" / "prices.duckdb"
        self.archive = Archive(tmp_path / "archive")
        self.sources = {
            s.id: SourceSpec.model_validate({**s.model_dump(), "url": site.url(f"/{s.sample}")})
            for s in declared
            if s.id in USED
        }

    def refresh(self, source_id: str) -> SourceOutcome:
        with Fetcher(FetchSettings(max_attempts=1)) as fetcher:
            return refresh_source(self.sources[source_id], fetcher=fetcher, db_path=self.db_path, archive=self.archive)

    def serve(self, source_id: str, body: bytes) -> None:
        self.site.set(f"/{self.sources[source_id].sample}", Reply(body=body))

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        with duckdb.connect(str(self.db_path), read_only=True) as con:
            return con.execute(sql, params or []).fetchall()


@pytest.fixture
def specs(site, sources, tmp_path) -> Specs:
    return Specs(site, sources, tmp_path)


def test_chip_and_configuration_pages_land_and_cross_check(specs):
    for source_id in USED:
        outcome = specs.refresh(source_id)
        assert outcome.status == "landed", (source_id, outcome.error)
    assert specs.query(
        "SELECT chip, memory_printed, memory_gib, bandwidth_printed, bandwidth_gb_s, doc_version FROM accelerator_chips"
        " ORDER BY chip"
    ) == [
        ("Trainium2", "96 GiB", Decimal(96), "2.9 TB/sec", Decimal(2900), "2.29.1"),
        ("Trainium3", "144 GiB", Decimal(144), "4.9 TB/sec", Decimal(4900), "2.29.1"),
    ]
    # Trn2 and Trn3 totals are chips x chip figures within rounding (20.8 PF vs 16 x 1,299 TF).
    assert specs.query(
        """SELECT count(*) FILTER (WHERE agrees), count(*) FROM accelerator_config_crosscheck
           WHERE config_source_url LIKE '%/neuron/%'"""
    ) == [(38, 38)]  # Trn2: 2 x 11 figures, Trn3: 2 x 8 (memory bandwidth among them)
    # The product page's 20.7 TB is decimal: 19,278 GiB against 144 x 144 GiB = 20,736: a warning naming both.
    ((warning,),) = specs.query(
        "SELECT warning FROM accelerator_config_crosscheck WHERE configuration = 'Trn3 Gen2 UltraServer' "
        "AND warning IS NOT NULL"
    )
    assert "20.7 TB" in warning and "144 chips x 144 GiB" in warning
    assert "trn3.html" in warning and "trainium3.html" in warning
    # Spec rows carry no price anywhere, and claims stay claims.
    assert specs.query("SELECT count(*) FROM aws_instance_price_history") == [(0,)]
    assert specs.query("SELECT count(*), bool_and(is_claim) FROM vendor_claims") == [(2, True)]
    assert specs.query("SELECT version, release_date::VARCHAR FROM neuron_sdk_release") == [("2.32.0", "2026-08-17")]
    assert specs.query(
        "SELECT dense_formats, sparse_formats FROM accelerator_generations WHERE chip = 'Trainium2'"
    ) == [("FP8 1299 TFLOPS; BF16/FP16/TF32 667 TFLOPS; FP32 181 TFLOPS", "BF16/FP16/FP8/TF32 2563 TFLOPS")]


def test_the_trn3_ultraserver_page_is_never_quarantined_for_lacking_an_instance_size(specs):
    outcome = specs.refresh("aws_trn3")
    assert outcome.status == "landed", outcome.error
    assert specs.query("SELECT count(*) FROM quarantine") == [(0,)]
    assert specs.query("SELECT configuration, chips FROM accelerator_configs ORDER BY chips") == [
        ("Trn3 Gen1 UltraServer", 64),
        ("Trn3 Gen2 UltraServer", 144),
    ]


def test_an_unchanged_page_adds_nothing_and_a_changed_figure_is_a_new_version(specs):
    specs.refresh("neuron_trainium2")
    assert specs.refresh("neuron_trainium2").status == "unchanged"
    body = sample_path(specs.sources["neuron_trainium2"]).read_bytes().replace(b"2.9\nTB/sec", b"3\nTB/sec")
    specs.serve("neuron_trainium2", body)
    assert specs.refresh("neuron_trainium2").status == "landed"
    assert specs.query(
        "SELECT bandwidth_printed, valid_to IS NULL FROM accelerator_chip_history ORDER BY valid_from"
    ) == [("2.9 TB/sec", False), ("3 TB/sec", True)]


def test_the_same_claims_read_from_another_address_are_unchanged(specs, site):
    """The page's address is provenance, not the claim: served from elsewhere (offline on another port, a
    mirror), the same sentences add no version."""
    assert specs.refresh("aws_trn2_claims").status == "landed"
    moved = specs.sources["aws_trn2_claims"]
    mirrored = {**moved.model_dump(), "url": site.url(f"/mirror/{moved.sample}")}
    specs.sources["aws_trn2_claims"] = SourceSpec.model_validate(mirrored)
    site.set(f"/mirror/{moved.sample}", Reply(body=sample_path(moved).read_bytes()))
    assert specs.refresh("aws_trn2_claims").status == "unchanged"
    versions = specs.query("SELECT count(*), count(*) FILTER (WHERE valid_to IS NULL) FROM vendor_claim_history")
    assert versions[0][0] == versions[0][1] > 0


def test_a_chip_page_whose_figures_are_gone_is_refused_and_the_last_good_specs_stay(specs):
    specs.refresh("neuron_trainium2")
    specs.serve("neuron_trainium2", b"<html><body><h1>AWS Trainium2</h1><p>Trainium2 is fast.</p></body></html>")
    outcome = specs.refresh("neuron_trainium2")
    assert outcome.status == "quarantined"
    assert "neuron_trainium2" in str(outcome.error) and "Compute" in str(outcome.error)
    assert specs.query("SELECT memory_printed, bandwidth_printed FROM accelerator_chips") == [("96 GiB", "2.9 TB/sec")]
    assert specs.query("SELECT count(*) FROM accelerator_compute WHERE subject = 'Trainium2'") == [(9,)]
    assert specs.query("SELECT stage FROM quarantine") == [("parse",)]


def test_launch_dates_land_from_the_repo_file_with_its_path_and_hash(specs, tmp_path):
    root = tmp_path / "repo"
    path = REFERENCE_FILES["launch_dates"][1]
    (root / path).parent.mkdir(parents=True)
    shutil.copy(REPO_ROOT / path, root / path)
    outcome = land_reference("launch_dates", specs.db_path, specs.archive, root)
    assert outcome.status == "landed", outcome.error
    digest = hashlib.sha256((root / path).read_bytes()).hexdigest()
    assert specs.query("SELECT url, sha256 FROM fetch_log WHERE source_id = 'launch_dates'") == [
        (f"repo:{path}", digest)
    ]
    assert specs.query(
        "SELECT family, launch_date::VARCHAR, status, source_url FROM accelerator_launches WHERE family LIKE 'Trn2%'"
        " ORDER BY family"
    ) == [("Trn2", "2024-12-03", "ga", f"repo:{path}"), ("Trn2 UltraServer", "2024-12-03", "preview", f"repo:{path}")]
    # Every launch has its own announcement URL, and none is a made-up download address.
    urls = specs.query("SELECT launch_source_url FROM accelerator_launches")
    assert len(urls) == 7 and all(u.startswith("https://aws.amazon.com/") for (u,) in urls)
    # An edit is a new version; a broken file is quarantined and the last good version stays current.
    (root / path).write_text((root / path).read_text().replace("2019-12-03", "2019-12-04"))
    assert land_reference("launch_dates", specs.db_path, specs.archive, root).status == "landed"
    assert specs.query("SELECT launch_date::VARCHAR FROM accelerator_launches WHERE family = 'Inf1'") == [
        ("2019-12-04",)
    ]
    (root / path).write_text((root / path).read_text().replace('"status": "ga"', '"status": "rumoured"', 1))
    broken = land_reference("launch_dates", specs.db_path, specs.archive, root)
    assert broken.status == "quarantined" and "status" in str(broken.error)
    assert specs.query("SELECT count(*) FROM accelerator_launches") == [(7,)]
    assert specs.query("SELECT count(*) FROM accelerator_launch_history") == [(8,)]


def test_a_configuration_page_losing_most_of_its_rows_is_quarantined_by_the_drift_rule(specs):
    assert specs.refresh("neuron_inf2_arch").status == "landed"
    body = sample_path(specs.sources["neuron_inf2_arch"]).read_bytes()
    for size in (b"Inf2.8xlarge", b"Inf2.24xlarge", b"Inf2.48xlarge"):
        body = body.replace(size, b"Removed")
    specs.serve("neuron_inf2_arch", body)
    outcome = specs.refresh("neuron_inf2_arch")
    assert outcome.status == "quarantined"
    assert "row count dropped from 4 to 1" in str(outcome.error)
    assert specs.query("SELECT count(*) FROM accelerator_configs") == [(4,)]
