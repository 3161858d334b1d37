"""A Neuron page whose table Sphinx dropped (a malformed list-table renders as nothing) is read from the RST source
the docs site serves beside it, over the same fetch path, archived and traced; a source malformed beyond reading
is refused with a named reason. Configuration memory bandwidth lands in accelerator_configs and is cross-checked
against chips x the chip page's bandwidth within the printed rounding; an upgraded warehouse gains its columns."""

from __future__ import annotations

import hashlib
from decimal import Decimal

import duckdb
import pytest

from pipelines.errors import ParseError
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.fetch.offline import pointed_at, serve_directory
from pipelines.refresh.many_sources import refresh_all
from pipelines.refresh.one_source import SourceOutcome, refresh_source
from pipelines.refresh.prefetch import fetch_all
from pipelines.refresh.reparse import reparse_source
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from pipelines.sources.locations import SAMPLES_DIR
from pipelines.specs import rst_tables
from tests.support.localserver import Reply
from warehouse.db import connect

SOURCES = {s.id: s for s in load_sources()}
PAGE = "neuron/en/v2.29.1/about-neuron/arch/neuron-hardware/trn1-arch.html"
SOURCE_TEXT = "neuron/en/v2.29.1/_sources/about-neuron/arch/neuron-hardware/trn1-arch.rst.txt"


def trn1_page() -> SourceSpec:
    """trn1-arch at a release whose rendered page lost its table (the sources file pins the last good one)."""
    data = SOURCES["neuron_trn1_arch"].model_dump()
    url = "https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.1/about-neuron/arch/neuron-hardware/trn1-arch.html"
    return SourceSpec.model_validate(data | {"url": url, "sample": PAGE})


def refresh(source: SourceSpec, tmp_path) -> SourceOutcome:
    with Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        return refresh_source(
            source, fetcher=fetcher, db_path=tmp_path / "prices.duckdb", archive=Archive(tmp_path / "archive")
        )


def query(tmp_path, sql: str) -> list[tuple]:
    with duckdb.connect(str(tmp_path / "prices.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_a_page_without_its_table_lands_from_its_rst_source_over_the_offline_server(tmp_path):
    page = sample_path(trn1_page()).read_bytes()
    assert b"<table" not in page and b"13,120" not in page  # the rendered page really lost its figures
    with serve_directory() as base:
        (source,) = pointed_at([trn1_page()], base)
        outcome = refresh(source, tmp_path)
    assert outcome.status == "landed", outcome.error
    assert query(
        tmp_path,
        "SELECT configuration, chips, memory_printed, bandwidth_printed, bandwidth_unit, bandwidth_gb_s, doc_version"
        " FROM accelerator_configs ORDER BY configuration",
    ) == [
        ("Trn1.2xlarge", 1, "32 GiB", "820 GiB/s", "GiB/s", Decimal("880.468296"), "2.29.1"),
        ("Trn1.32xlarge", 16, "512 GiB", "13,120 GiB/s", "GiB/s", Decimal("14087.492731"), "2.29.1"),
        ("Trn1n.32xlarge", 16, "512 GiB", "13,120 GiB/s", "GiB/s", Decimal("14087.492731"), "2.29.1"),
    ]
    # The landing is traced to the source text's own fetch: URL, hash, parser version; both bodies archived.
    text = (SAMPLES_DIR / SOURCE_TEXT).read_bytes()
    text_sha, page_sha = hashlib.sha256(text).hexdigest(), hashlib.sha256(page).hexdigest()
    ((url, sha, parser, content_type, warnings),) = query(
        tmp_path, "SELECT url, sha256, parser_version, content_type, warnings FROM fetch_log"
    )
    assert url == f"{base}/{SOURCE_TEXT}" and sha == text_sha and parser == "neuron_config/1.1"
    assert content_type.startswith("text/plain")
    assert any(page_sha in w and "has no table" in w and PAGE in w for w in warnings)
    assert any("9] cells over body rows of [10]" in w for w in warnings)  # the tolerated malformation, named
    assert query(tmp_path, "SELECT DISTINCT sha256, source_url FROM accelerator_config_history") == [
        (text_sha, f"{base}/{SOURCE_TEXT}")
    ]
    archive = Archive(tmp_path / "archive")
    assert archive.get(text_sha) == text and archive.get(page_sha) == page
    assert query(tmp_path, "SELECT count(*) FROM quarantine") == [(0,)]


MALFORMED = b"""Amazon EC2 Trn1/Trn1n Architecture
===================================

.. list-table::
    :header-rows: 1

    *   - Instance size
        - # of Trainium chips
        - Device Memory (GiB)
    *   - Trn1.2xlarge
        - 1
    *   - Trn1.32xlarge
        - 16
        - 512
"""


def test_a_malformed_source_is_refused_naming_the_source_and_what_was_wrong(site, tmp_path):
    source = SourceSpec.model_validate(trn1_page().model_dump() | {"url": site.url(f"/{PAGE}")})
    site.set(f"/{PAGE}", Reply(body=sample_path(source).read_bytes()))
    site.set(f"/{SOURCE_TEXT}", Reply(body=MALFORMED, content_type="text/plain"))
    outcome = refresh(source, tmp_path)
    assert outcome.status == "quarantined"
    assert isinstance(outcome.error, ParseError) and outcome.error.source_id == "neuron_trn1_arch"
    assert "RST source" in str(outcome.error) and "different cell counts [2, 3]" in str(outcome.error)
    assert query(tmp_path, "SELECT url LIKE '%/_sources/%.rst.txt', stage FROM quarantine") == [(True, "parse")]
    assert query(tmp_path, "SELECT count(*) FROM accelerator_config_history") == [(0,)]


def test_a_source_text_that_is_not_there_leaves_the_page_refused_saying_so(site, tmp_path):
    source = SourceSpec.model_validate(trn1_page().model_dump() | {"url": site.url(f"/{PAGE}")})
    site.set(f"/{PAGE}", Reply(body=sample_path(source).read_bytes()))  # neither _sources suffix is served: 404s
    outcome = refresh(source, tmp_path)
    assert outcome.status == "quarantined"
    assert "no configuration table" in str(outcome.error) and "could not be fetched" in str(outcome.error)
    assert site.hits(f"/{SOURCE_TEXT}") == 1 and site.hits(f"/{SOURCE_TEXT.removesuffix('.txt')}") == 1
    assert query(tmp_path, "SELECT url FROM quarantine") == [(source.url.unicode_string(),)]


def serve(site, source_id: str, body: bytes | None = None) -> SourceSpec:
    source = SOURCES[source_id]
    site.set(f"/{source.sample}", Reply(body=body or sample_path(source).read_bytes()))
    return SourceSpec.model_validate(source.model_dump() | {"url": site.url(f"/{source.sample}")})


def test_ultraserver_and_instance_bandwidth_agree_with_chips_times_the_chip_figure(site, tmp_path):
    for source_id in ("neuron_trainium2", "neuron_trn2_arch"):
        assert refresh(serve(site, source_id), tmp_path).status == "landed"
    assert query(
        tmp_path,
        "SELECT configuration, bandwidth_printed, bandwidth_gb_s FROM accelerator_configs ORDER BY chips",
    ) == [
        ("trn2.48xlarge / trn2u.48xlarge", "46.4 TB/s", Decimal(46400)),
        ("Trn2 UltraServer", "185.6 TB/s", Decimal(185600)),
    ]
    # 64 x 2.9 TB/sec = 185.6; the printed rounding allows 0.05 TB/s on the total and 0.05 per chip.
    assert query(
        tmp_path,
        "SELECT configuration, expected_total, tolerance, agrees FROM accelerator_config_crosscheck"
        " WHERE figure = 'memory bandwidth GB/s' ORDER BY chips",
    ) == [
        ("trn2.48xlarge / trn2u.48xlarge", Decimal(46400), Decimal(850), True),
        ("Trn2 UltraServer", Decimal(185600), Decimal(3250), True),
    ]


def test_the_crosscheck_catches_a_wrong_ultraserver_bandwidth(site, tmp_path):
    assert refresh(serve(site, "neuron_trainium2"), tmp_path).status == "landed"
    page = sample_path(SOURCES["neuron_trn2_arch"]).read_bytes()
    assert page.count(b"185.6") == 1
    assert refresh(serve(site, "neuron_trn2_arch", page.replace(b"185.6", b"158.6")), tmp_path).status == "landed"
    ((warning,),) = query(
        tmp_path,
        "SELECT warning FROM accelerator_config_crosscheck WHERE NOT agrees",
    )
    assert warning.startswith("Trn2 UltraServer memory bandwidth GB/s: 158.6 TB/s = 158600 printed at ")
    assert "64 chips x 2.9 TB/sec at " in warning and warning.endswith("= 185600")
    assert "trn2-arch.html" in warning and "trainium2.html" in warning


def test_a_warehouse_from_before_configuration_bandwidth_gains_its_columns(tmp_path):
    path = tmp_path / "old.duckdb"
    with connect(path) as con:
        for column in ("bandwidth_printed", "bandwidth_value", "bandwidth_unit", "bandwidth_gb_s"):
            con.execute(f"ALTER TABLE accelerator_config_history DROP COLUMN {column}")
        con.execute("UPDATE schema_version SET sql_sha256 = 'older'")
    with duckdb.connect(str(path)) as raw:
        columns = {
            name
            for (name,) in raw.execute(
                "SELECT column_name FROM duckdb_columns() WHERE table_name = 'accelerator_config_history'"
            ).fetchall()
        }
    assert "bandwidth_gb_s" not in columns
    with connect(path) as con:
        found = con.execute(
            "SELECT column_name, comment FROM duckdb_columns() WHERE table_name = 'accelerator_configs'"
            " AND column_name LIKE 'bandwidth%' ORDER BY column_name"
        ).fetchall()
    assert [name for name, _ in found] == ["bandwidth_gb_s", "bandwidth_printed", "bandwidth_unit", "bandwidth_value"]
    assert all(comment for _, comment in found)


# --- the RST reader on the constructs the Neuron sources use ----------------------------------------------------

TRN3_LIST_TABLE = """.. list-table::
   :header-rows: 2
   :stub-columns: 1
   :widths: 30 20 20

   * -·
     - Trn3 Gen1 UltraServer
     - Trn3 Gen2 UltraServer
   * - Configuration
     -·
     -·
   * - **Memory**
     -·
     -·
   * - Device Memory Bandwidth (TB/sec)
     - 313.6
     - 705.6
""".replace("·", " ")  # a space after an empty cell's "-", as the real trn3-arch source has


def test_a_list_table_with_two_header_rows_and_bold_section_rows():
    (table,) = rst_tables.tables(TRN3_LIST_TABLE)
    assert table.header_rows == 2 and table.notes == []
    assert table.rows == [
        ["", "Trn3 Gen1 UltraServer", "Trn3 Gen2 UltraServer"],
        ["Configuration", "", ""],
        ["Memory", "", ""],
        ["Device Memory Bandwidth (TB/sec)", "313.6", "705.6"],
    ]


GRID = """+-----------+---------------------------+
| Compute   | Eight cores deliver:      |
|           |                           |
|           | * 1,299 FP8 TFLOPS [#]_   |
|           | * 667 BF16 TFLOPS         |
+-----------+---------------------------+
| Device    | 96 GiB of memory with 2.9 |
| Memory    | TB/sec of bandwidth.      |
+-----------+---------------------------+
| Spanning row of :ref:`Trainium <t>`   |
+---------------------------------------+
"""


def test_a_grid_table_keeps_bullets_apart_joins_wrapped_lines_and_repeats_a_spanning_cell():
    (table,) = rst_tables.tables(GRID)
    assert table.rows == [
        ["Compute", "Eight cores deliver:; 1,299 FP8 TFLOPS; 667 BF16 TFLOPS"],
        ["Device Memory", "96 GiB of memory with 2.9 TB/sec of bandwidth."],
        ["Spanning row of Trainium", "Spanning row of Trainium"],
    ]


SIMPLE = """Intro.

=============  ======  ==================
Instance size  Chips   Device Memory (GiB)
=============  ======  ==================
Inf1.xlarge    1       8
Inf1.24xlarge  16      128
=============  ======  ==================

After.
"""


def test_a_simple_table_with_its_header():
    (table,) = rst_tables.tables(SIMPLE)
    assert table.header_rows == 1
    assert table.rows == [
        ["Instance size", "Chips", "Device Memory (GiB)"],
        ["Inf1.xlarge", "1", "8"],
        ["Inf1.24xlarge", "16", "128"],
    ]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (".. list-table::\n   :header-rows: 1\n\n   Instance size, chips\n", "is not a '* -' row"),
        (".. list-table::\n   :header-rows: one\n\n   * - a\n     - b\n", ":header-rows: 'one' is not a number"),
        (".. list-table::\n   :header-rows: 3\n\n   * - a\n     - b\n", "3 header rows but 1"),
        ("=====  =====\nA      B\n=====  =====\n1      2\n", "no closing '=' border"),
    ],
)
def test_tables_that_cannot_be_read_are_refused_naming_the_line(text, reason):
    with pytest.raises(rst_tables.MalformedTable, match="at line 1") as caught:
        rst_tables.tables(text)
    assert reason in str(caught.value)


def test_refresh_all_reads_the_source_text_too_and_reparse_replays_it(tmp_path):
    """The CLI's and Dagster's path (refresh_all: fetched first, parsed by workers) falls back the same way; the
    archived source text replays through today's parser into the same rows."""
    db_path, archive = tmp_path / "prices.duckdb", Archive(tmp_path / "archive")
    with serve_directory() as base, Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        (source,) = pointed_at([trn1_page()], base)
        fetched = fetch_all([source], fetcher, max_sources=2)
        (outcome,) = refresh_all(
            [source], db_path=db_path, archive=archive, fetcher=fetcher, max_sources=2, fetched=fetched
        )
    assert outcome.status == "landed", outcome.error
    assert any("has no table" in w for w in outcome.warnings)
    rows = "SELECT configuration, bandwidth_printed, sha256, valid_to FROM accelerator_config_history ORDER BY 1"
    landed = query(tmp_path, rows)
    assert [r[:2] for r in landed] == [
        ("Trn1.2xlarge", "820 GiB/s"),
        ("Trn1.32xlarge", "13,120 GiB/s"),
        ("Trn1n.32xlarge", "13,120 GiB/s"),
    ]
    replayed = reparse_source(source, db_path=db_path, archive=archive)
    assert (replayed.fetches, replayed.landed, replayed.quarantined) == (1, 1, 0)
    assert query(tmp_path, rows) == landed
