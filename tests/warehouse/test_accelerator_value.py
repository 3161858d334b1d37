"""The NVIDIA reference and the accelerator_value view end to end: the in-repo reference landed through the
check-and-land path (an edit is a new version, a bad figure is refused), Neuron chip pages and the AWS trn1/inf1
product pages served over HTTP on 127.0.0.1 into a temporary DuckDB file, read back through accelerator_value."""

from __future__ import annotations

import hashlib
import json
import shutil
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb
import pytest
from rich.console import Console

from pipelines.cli.show import print_headline
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.gpu.gpu_names import canonical
from pipelines.refresh.one_source import SourceOutcome, refresh_source
from pipelines.refresh.references import REFERENCE_FILES, REPO_ROOT, land_reference
from pipelines.sources.file import SourceSpec
from tests.support.localserver import LocalServer

PATH = REFERENCE_FILES["nvidia_gpus"][1]
TWELVE_DP = Decimal("1e-12")
USED = ("aws_trn1", "aws_inf1", "neuron_trainium", "neuron_inferentia", "fx_ecb", "gpu_crusoe")


class Warehouse:
    def __init__(self, site: LocalServer, declared: list[SourceSpec], tmp_path: Path):
        self.db_path = tmp_path / "warehouse" / "prices.duckdb"
        self.archive = Archive(tmp_path / "archive")
        self.root = tmp_path / "repo"
        (self.root / PATH).parent.mkdir(parents=True)
        shutil.copy(REPO_ROOT / PATH, self.root / PATH)
        self.sources = {
            s.id: SourceSpec.model_validate({**s.model_dump(), "url": site.url(f"/{s.sample}")})
            for s in declared
            if s.id in USED
        }

    def refresh(self, source_id: str) -> SourceOutcome:
        with Fetcher(FetchSettings(max_attempts=1)) as fetcher:
            return refresh_source(self.sources[source_id], fetcher=fetcher, db_path=self.db_path, archive=self.archive)

    def land_reference(self) -> SourceOutcome:
        return land_reference("nvidia_gpus", self.db_path, self.archive, self.root)

    def edit(self, old: str, new: str) -> None:
        text = (self.root / PATH).read_text()
        assert old in text
        (self.root / PATH).write_text(text.replace(old, new, 1))

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        with duckdb.connect(str(self.db_path), read_only=True) as con:
            return con.execute(sql, params or []).fetchall()


@pytest.fixture
def wh(site, sources, tmp_path) -> Warehouse:
    return Warehouse(site, sources, tmp_path)


def test_the_reference_lands_with_its_path_and_hash_and_each_figure_its_source(wh):
    outcome = wh.land_reference()
    assert outcome.status == "landed", outcome.error
    digest = hashlib.sha256((wh.root / PATH).read_bytes()).hexdigest()
    assert wh.query("SELECT url, sha256 FROM fetch_log WHERE source_id = 'nvidia_gpus'") == [(f"repo:{PATH}", digest)]
    assert wh.query(
        "SELECT memory_printed, memory_gib, bandwidth_gb_s, fp8_dense_tflops, bf16_dense_tflops, fp32_tflops,"
        " fp8_sparse_tflops, fp8_source_url FROM nvidia_gpu_specs WHERE gpu = 'H100 SXM'"
    ) == [
        (
            "80GB",
            Decimal("74.505806"),  # 80 x 10^9 / 2^30
            Decimal(3350),
            Decimal(1979),  # half the printed 3,958* with sparsity
            Decimal("989.5"),
            Decimal(67),
            Decimal(3958),
            "https://www.nvidia.com/en-us/data-center/h100/",
        )
    ]
    # B200 prints PFLOPS: stored as printed, normalised to TFLOPS.
    assert wh.query(
        "SELECT value, unit, normalised FROM gpu_reference_figures WHERE gpu = 'B200' AND figure_key = 'FP8 dense'"
    ) == [(Decimal("4.5"), "PFLOPS", Decimal(4500))]
    # Only a sparse FP8 figure is printed for the RTX 6000 Ada: its dense FP8 stays NULL, never the sparse one.
    assert wh.query("SELECT fp8_dense_tflops, fp8_sparse_tflops FROM nvidia_gpu_specs WHERE gpu = 'RTX 6000 Ada'") == [
        (None, Decimal(1457))
    ]
    urls = wh.query("SELECT DISTINCT figure_source_url FROM gpu_reference_figures")
    assert urls and all(u.startswith("https://") for (u,) in urls)
    assert wh.query("SELECT count(*) FROM gpu_reference_figures WHERE figure_source_date IS NULL") == [(0,)]


def test_an_edited_figure_is_a_new_version_and_a_bad_one_is_refused(wh):
    assert wh.land_reference().status == "landed"
    wh.edit('"printed": "3.35TB/s", "value": "3.35"', '"printed": "3.4TB/s", "value": "3.4"')
    assert wh.land_reference().status == "landed"
    history = wh.query(
        "SELECT printed, valid_to IS NULL FROM gpu_reference_figure_history"
        " WHERE gpu = 'H100 SXM' AND figure_key = 'bandwidth' ORDER BY valid_from"
    )
    assert history == [("3.35TB/s", False), ("3.4TB/s", True)]
    # A compute figure in a memory unit: refused naming the GPU; the last good version stays current.
    wh.edit(
        '"printed": "FP32 67 teraFLOPS", "value": "67", "unit": "TFLOPS"',
        '"printed": "FP32 67", "value": "67", "unit": "GB"',
    )
    broken = wh.land_reference()
    assert broken.status == "quarantined"
    assert "H100 SXM" in str(broken.error) and "GB" in str(broken.error)
    assert wh.query("SELECT fp32_tflops, bandwidth_printed FROM nvidia_gpu_specs WHERE gpu = 'H100 SXM'") == [
        (Decimal(67), "3.4TB/s")
    ]


def test_a_sparse_figure_given_twice_as_dense_is_refused(wh):
    wh.edit('"number_format": "FP8", "sparse": true', '"number_format": "FP8", "sparse": false')
    broken = wh.land_reference()
    assert broken.status == "quarantined" and "FP8 dense" in str(broken.error)
    assert wh.query("SELECT count(*) FROM fetch_log WHERE outcome = 'landed'") == [(0,)]


def exact(value: Decimal) -> Decimal:
    return value.quantize(TWELVE_DP, rounding=ROUND_HALF_UP)


def test_accelerator_value_prices_a_trn1_row_per_gib_and_per_dense_pflop_exactly(wh):
    for source_id in USED:
        assert wh.refresh(source_id).status == "landed", source_id
    assert wh.land_reference().status == "landed"
    ((price,),) = wh.query(
        "SELECT usd_per_instance_hour FROM aws_instance_prices"
        " WHERE instance_type = 'trn1.32xlarge' AND price_kind = 'on_demand'"
    )
    row = wh.query(
        """SELECT accelerator_spec, spec_source, usd_per_accelerator_hour, memory_gib_per_accelerator, memory_basis,
                  usd_per_gib_memory_hour, bf16_format, dense_bf16_tflops, usd_per_dense_pflop_hour_bf16,
                  fp8_format, usd_per_dense_pflop_hour_fp8
           FROM accelerator_value WHERE offering = 'trn1.32xlarge' AND price_kind = 'on_demand'"""
    )
    per_chip = price / 16
    assert row == [
        (
            "Trainium",
            "neuron_docs",
            per_chip,
            Decimal(32),  # the chip page's 32 GiB
            "spec",
            exact(per_chip / 32),
            "BF16",
            Decimal(190),
            exact(per_chip / Decimal("0.19")),  # 190 dense BF16 TFLOPS = 0.19 PFLOPS
            "cFP8",  # the chip page prints cFP8, not FP8: the format is named
            exact(per_chip / Decimal("0.19")),
        )
    ]
    # Inferentia has no 8-bit float figure: NULL, not guessed, and no format named.
    inf1 = wh.query(
        "SELECT DISTINCT fp8_format, dense_fp8_tflops, usd_per_dense_pflop_hour_fp8, usd_per_dense_pflop_hour_bf16"
        " IS NOT NULL FROM accelerator_value WHERE accelerator_spec = 'Inferentia'"
    )
    assert inf1 == [(None, None, None, True)]
    assert wh.query("SELECT count(*) FROM accelerator_value WHERE offering_kind = 'aws_instance'") == wh.query(
        "SELECT count(*) FROM aws_instance_prices"
    )
    # `ratecard show` prints the comparison, the 8-bit format named beside its figure.
    console = Console(record=True, width=250)
    print_headline(console, wh.db_path)
    text = console.export_text()
    (line,) = [x for x in text.splitlines() if "on_demand" in x and "neuron_docs" in x and "Trainium " in x]
    ((cheapest,),) = wh.query(
        "SELECT min(usd_per_accelerator_hour) FROM aws_instance_prices WHERE accelerator = 'Trainium'"
        " AND price_kind = 'on_demand'"
    )
    bf16 = cheapest / Decimal("0.19")
    four = str(bf16.quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP))
    assert "AWS accelerators vs NVIDIA" in text and f"{four} (cFP8)" in line


def test_every_accelerator_value_column_has_a_comment(wh):
    assert wh.land_reference().status == "landed"
    for view in ("accelerator_value", "nvidia_gpu_specs", "gpu_reference_figures"):
        rows = wh.query("SELECT column_name, comment FROM duckdb_columns() WHERE table_name = ?", [view])
        assert len(rows) > 10
        assert [name for name, comment in rows if not comment] == [], view


def test_every_reference_gpu_is_a_name_the_canonical_catalog_gives():
    document = json.loads((REPO_ROOT / PATH).read_text())
    for entry in document["gpus"]:
        known = canonical(entry["gpu"])
        assert known is not None, entry["gpu"]
        assert (known.model, known.variant) == (entry["gpu_model"], entry.get("gpu_variant")), entry["gpu"]


def test_gpu_listings_join_the_reference_by_canonical_name_and_an_unknown_gpu_stays_null(wh):
    for source_id in ("fx_ecb", "gpu_crusoe"):
        assert wh.refresh(source_id).status == "landed", source_id
    assert wh.land_reference().status == "landed"
    rows = wh.query(
        """SELECT accelerator_printed, accelerator_spec, memory_gib_per_accelerator, memory_basis,
                  usd_per_accelerator_hour, usd_per_gib_memory_hour, fp8_format, usd_per_dense_pflop_hour_fp8,
                  usd_per_dense_pflop_hour_bf16
           FROM accelerator_value WHERE seller = 'Crusoe' AND accelerator_printed IN (?, ?)
             AND price_kind = 'on_demand'  -- the page's spot prices are rows of their own
           ORDER BY accelerator_printed""",
        ["AMD MI300X 192GB", "NVIDIA H100 80GB SXM"],
    )
    (mi300x, h100) = rows
    # Not an NVIDIA GPU of the reference: its own memory figure is used, every compute figure is NULL.
    assert mi300x[1:4] == (None, Decimal("178.813934"), "price_row")
    assert mi300x[6:] == (None, None, None)
    price = h100[4]
    assert h100[1:4] == ("H100 SXM", Decimal("74.505806"), "price_row")
    assert h100[6:] == ("FP8", exact(price / Decimal("1.979")), exact(price / Decimal("0.9895")))
