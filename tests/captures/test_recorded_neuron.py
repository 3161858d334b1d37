"""The Neuron docs' Sphinx sources as committed upstream (tests/recorded/neuron/, provenance in SOURCES.md).

Configuration pages: each recorded `.rst` lands through the real path (served on 127.0.0.1 as the docs site serves
`_sources/<page>.rst.txt`, fetched, parsed by neuron_config, validated, landed) with the figures the file prints,
bandwidth included. Chip pages: ratecard reads their rendered HTML, which has no recording here, so the recording
checks the samples instead: every chip figure the sample's parse lands is printed in the real source text.
"""

from __future__ import annotations

import re
from decimal import Decimal

import duckdb
import pytest

from pipelines.adapters import parser_for
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.one_source import refresh_source
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from pipelines.specs import rst_tables
from tests.support.localserver import LocalServer, Reply
from tests.support.paths import RECORDED

NEURON = RECORDED / "neuron"
SOURCES = {s.id: s for s in load_sources()}
D = Decimal

# Recording -> the source it stands for, and the rows accelerator_configs gets from it, as the file prints them.
CONFIG_PAGES = {
    "trn1-arch_2024-12-06": (
        "neuron_trn1_arch",
        [
            ("Trn1.2xlarge", 1, "32 GiB", "820 GiB/s", D("880.468296")),
            ("Trn1.32xlarge", 16, "512 GiB", "13,120 GiB/s", D("14087.492731")),
            ("Trn1n.32xlarge", 16, "512 GiB", "13,120 GiB/s", D("14087.492731")),
        ],
    ),
    "trn2-arch": (
        "neuron_trn2_arch",
        [
            ("trn2.48xlarge / trn2u.48xlarge", 16, "1,536 GiB", "46.4 TB/s", D(46400)),
            ("Trn2 UltraServer", 64, "6,144 GiB", "185.6 TB/s", D(185600)),
        ],
    ),
    "trn3-arch": (
        "neuron_trn3_arch",
        [
            ("Trn3 Gen1 UltraServer", 64, "9,216 GiB", "313.6 TB/s", D(313600)),
            ("Trn3 Gen2 UltraServer", 144, "20,736 GiB", "705.6 TB/s", D(705600)),
        ],
    ),
    "inf1-arch": (
        "neuron_inf1_arch",
        [
            ("Inf1.xlarge", 1, "8 GiB", "50 GiB/s", D("53.687091")),
            ("Inf1.2xlarge", 1, "8 GiB", "50 GiB/s", D("53.687091")),
            ("Inf1.6xlarge", 4, "32 GiB", "200 GiB/s", D("214.748365")),
            ("Inf1.24xlarge", 16, "128 GiB", "800 GiB/s", D("858.993459")),
        ],
    ),
    "inf2-arch": (
        "neuron_inf2_arch",
        [
            ("Inf2.xlarge", 1, "32 GiB", "820 GiB/s", D("880.468296")),
            ("Inf2.8xlarge", 1, "32 GiB", "820 GiB/s", D("880.468296")),
            ("Inf2.24xlarge", 6, "192 GiB", "4920 GiB/s", D("5282.809774")),
            ("Inf2.48xlarge", 12, "384 GiB", "9840 GiB/s", D("10565.619548")),
        ],
    ),
}
CHIP_PAGES = ["trainium", "trainium2", "trainium3", "inferentia", "inferentia2"]


def served_as_source_text(server: LocalServer, recording: str, source_id: str) -> SourceSpec:
    """The source pointed at its page's `_sources/<page>.rst.txt` on the local server, serving the recording."""
    source = SOURCES[source_id]
    page = str(source.url).split("/en/", 1)[1].split("/", 1)[1].removesuffix(".html")
    path = f"/en/_sources/{page}.rst.txt"
    server.set(path, Reply(body=(NEURON / f"{recording}.rst").read_bytes(), content_type="text/plain"))
    return SourceSpec.model_validate(source.model_dump() | {"url": server.url(path)})


@pytest.mark.parametrize("recording", sorted(CONFIG_PAGES))
def test_each_recorded_configuration_page_lands_its_printed_figures(recording, tmp_path):
    source_id, expected = CONFIG_PAGES[recording]
    db = tmp_path / "prices.duckdb"
    with LocalServer() as server, Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        source = served_as_source_text(server, recording, source_id)
        outcome = refresh_source(source, fetcher=fetcher, db_path=db, archive=Archive(tmp_path / "archive"))
    assert outcome.status == "landed", outcome.error
    with duckdb.connect(str(db), read_only=True) as con:
        landed = con.execute(
            "SELECT configuration, chips, memory_printed, bandwidth_printed, bandwidth_gb_s FROM accelerator_configs"
            " ORDER BY chips, configuration"
        ).fetchall()
        traced = con.execute("SELECT DISTINCT source_url FROM accelerator_config_history").fetchall()
    assert landed == sorted(expected, key=lambda row: (row[1], row[0]))
    assert traced == [(str(source.url),)]


def test_the_current_trn1_source_has_a_ragged_list_table_read_by_position_and_named():
    """Upstream's trn1-arch.rst (2025 on) has body rows one cell longer than its header: read, with a warning."""
    source = SOURCES["neuron_trn1_arch"]
    source = SourceSpec.model_validate(source.model_dump() | {"url": str(source.url).replace(".html", ".rst.txt")})
    batch = parser_for(source.adapter)((NEURON / "trn1-arch.rst").read_bytes(), source)
    assert [(c.configuration, c.chips, c.bandwidth_printed) for c in batch.configs][1] == (
        "Trn1.32xlarge",
        16,
        "13,120 GiB/s",
    )
    assert any("header rows of [9] cells over body rows of [10]" in w for w in batch.warnings), batch.warnings


def source_words(recording: str) -> str:
    """The recording's text as a reader sees it: markup and grid-cell borders gone, whitespace collapsed."""
    text = rst_tables.inline_text((NEURON / f"{recording}.rst").read_text(encoding="utf-8"))
    return " ".join(re.sub(r"[|+]", " ", text).split())


@pytest.mark.parametrize("recording", CHIP_PAGES)
def test_each_chip_figure_of_the_samples_is_printed_in_the_real_source(recording):
    source = SOURCES[f"neuron_{recording}"]
    (chip,) = parser_for(source.adapter)(sample_path(source).read_bytes(), source).chips
    words = source_words(recording)
    for printed in (chip.memory_printed, chip.bandwidth_printed):
        assert printed and printed in words, (recording, printed)


@pytest.mark.parametrize("recording", sorted(p.stem for p in NEURON.glob("*.rst")))
def test_every_recorded_table_reads_as_rows_of_cells(recording):
    """No recorded source trips the RST table reader: every table reads, each row has cells."""
    found = rst_tables.tables((NEURON / f"{recording}.rst").read_text(encoding="utf-8"))
    assert found, recording
    assert all(table.rows and all(row for row in table.rows) for table in found), recording
