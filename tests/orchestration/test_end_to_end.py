"""The whole path for real: Dagster materialises every asset, fetching over HTTP from 127.0.0.1, into a
temporary DuckDB file and into a DuckLake on the machine's PostgreSQL; then the published figures, lineage,
quarantine and reparse are checked in SQL, the same on both.

Each backend is landed once per test process (tests/support/dagster_landed.py, shared with
test_gpu_end_to_end.py); tests that refresh again do so on a copy (tests/support/landed.py). Each backend's tests
run in one xdist worker (their xdist_group, the file backend's with test_gpu_end_to_end.py), so no other worker
lands the samples again."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from pipelines.adapters import aws_product_page
from pipelines.fetch.archive import Archive
from pipelines.refresh.reparse import reparse_source
from pipelines.sources.file import load_sources, sample_path
from tests.support.backends import warehouse_at
from tests.support.dagster_landed import (
    BACKEND_PARAMS,
    DagsterLanding,
    MergedResult,
    check_outcomes,
    failures_by_step,
    run_refresh,
)
from tests.support.landed import copy_of
from tests.support.localserver import LocalServer, Reply
from tests.support.sourcefiles import serve_samples, write_sources_file
from warehouse.db import connect
from warehouse.lake import view_names
from warehouse.sql_files import schema_files, sql
from warehouse.target import LAKE_DATA_ENV, local_dir


@pytest.fixture(
    scope="module",
    # One xdist group per backend: each worker lands only the backend it tests, and the two run side by side.
    params=BACKEND_PARAMS,
)
def landed_once(request, dagster_landings) -> Iterator[DagsterLanding]:
    """The session's landing on this backend, with its lake data folder named while the module reads it."""
    landed = dagster_landings.get(request.param)
    with pytest.MonkeyPatch.context() as mp:
        if landed.lake_data:
            mp.setenv(LAKE_DATA_ENV, landed.lake_data)
        yield landed


@pytest.fixture
def landed(landed_once) -> MergedResult:
    return landed_once.result


@pytest.fixture
def db_path(landed_once) -> Path | str:
    """The shared landed warehouse: read it, never write it (a writing test takes `own_copy`)."""
    return landed_once.db_path


@pytest.fixture
def site(landed_once, sources) -> Iterator[LocalServer]:
    """The server the shared warehouse was landed from; a test may change its answers, which are reset after."""
    yield landed_once.site
    serve_samples(landed_once.site, sources)


@pytest.fixture
def sources_file(landed_once) -> Path:
    return landed_once.sources_file


@pytest.fixture
def empty_db_path(landed_once, tmp_path, monkeypatch) -> Iterator[Path | str]:
    """A new warehouse of its own on the shared one's backend."""
    with warehouse_at(landed_once.backend, tmp_path, monkeypatch) as location:
        yield location


@pytest.fixture
def own_copy(landed_once, tmp_path, monkeypatch) -> Iterator[Path | str]:
    """A private copy of the shared landed warehouse, for a test that refreshes again."""
    with copy_of(landed_once.db_path, tmp_path / "copy", monkeypatch) as copied:
        yield copied


def query(db_path, sql: str, params=None) -> list[tuple]:
    with connect(db_path, read_only=True) as con:
        return con.execute(sql, params or []).fetchall()


def current_price(db_path, instance_type: str, kind: str) -> tuple:
    rows = query(
        db_path,
        """SELECT usd_per_instance_hour, usd_per_accelerator_hour, usd_per_accelerator_hour_4dp,
                                    region, region_stated, accelerator_count
                             FROM aws_instance_prices WHERE instance_type = ? AND price_kind = ?
                             AND source_family <> 'price_list'""",  # the pages' rows (the price list: per region)
        [instance_type, kind],
    )
    assert len(rows) == 1, rows
    return rows[0]


def test_published_figures_come_out_exactly(landed, db_path):
    assert current_price(db_path, "trn1.2xlarge", "on_demand") == (
        Decimal("1.34"),
        Decimal("1.34"),
        Decimal("1.3400"),
        None,
        False,
        1,
    )
    assert current_price(db_path, "trn1.32xlarge", "on_demand")[:3] == (
        Decimal("21.50"),
        Decimal("1.34375"),
        Decimal("1.3438"),
    )
    assert current_price(db_path, "inf1.xlarge", "on_demand")[0] == Decimal("0.228")
    assert current_price(db_path, "inf2.xlarge", "on_demand")[0] == Decimal("0.76")
    assert current_price(db_path, "inf2.8xlarge", "on_demand")[0] == Decimal("1.97")
    assert current_price(db_path, "trn2.48xlarge", "capacity_block") == (
        Decimal("35.7608"),
        Decimal("2.23505"),
        Decimal("2.2351"),
        "US East (Ohio)",
        True,
        16,
    )


def test_absent_prices_stay_absent(landed, db_path):
    # Trn2 and Trn3 print no on-demand price; the Capacity Block rate must not stand in for one.
    assert query(
        db_path,
        """SELECT count(*) FROM aws_instance_prices
                             WHERE price_kind = 'on_demand' AND family IN ('trn2', 'trn3')""",
    ) == [(0,)]
    # trn2.48xlarge from its page and the Capacity Blocks page; Trn3 has UltraServer configurations, no sizes.
    assert query(db_path, "SELECT count(*) FROM aws_instance_specs WHERE family IN ('trn2', 'trn3')") == [(2,)]


def test_memory_is_accelerator_memory_as_printed(landed, db_path):
    rows = query(
        db_path,
        """SELECT instance_type, accelerator_memory_value, accelerator_memory_unit,
                                    accelerator_memory_derived
                             FROM aws_instance_prices
                             WHERE instance_type IN ('inf2.xlarge', 'inf2.8xlarge', 'inf1.6xlarge')
                               AND price_kind = 'on_demand' AND source_family = 'product_page'
                             ORDER BY instance_type""",
    )
    assert rows == [
        ("inf1.6xlarge", Decimal("32"), "GiB", True),
        ("inf2.8xlarge", Decimal("32"), "GB", False),
        ("inf2.xlarge", Decimal("32"), "GB", False),
    ]


def test_a_page_that_states_no_memory_says_whose_figure_it_shows(landed, db_path):
    """The Capacity Blocks tables print no memory: each type's comes from another AWS source, named."""
    rows = query(
        db_path,
        """SELECT instance_type, accelerator_memory_value, accelerator_memory_unit, accelerator_memory_basis
           FROM aws_instance_prices WHERE source_id = 'aws_capacity_blocks' ORDER BY instance_type""",
    )
    assert [r[:3] for r in rows] == [
        ("p4d.24xlarge", Decimal("320"), "GB"),
        ("p5.48xlarge", Decimal("640"), "GB"),
        ("trn1.32xlarge", Decimal("512"), "GB"),
        ("trn2.48xlarge", Decimal("1.5"), "TB"),
    ]
    assert rows[3][3] == "stated by aws_trn2: this page states none"
    assert rows[0][3].startswith("stated by aws_pricelist_") and rows[0][3].endswith(": this page states none")


def test_every_figure_traces_to_its_fetch(landed, db_path, site, tmp_path):
    trn1 = next(s for s in load_sources() if s.id == "aws_trn1")
    body = sample_path(trn1).read_bytes()
    sha = hashlib.sha256(body).hexdigest()
    rows = query(
        db_path,
        """SELECT DISTINCT p.source_url, p.sha256, p.parser_version, f.status, f.bytes
                             FROM aws_instance_prices p JOIN fetch_log f USING (fetch_id)
                             WHERE p.source_id = 'aws_trn1'""",
    )
    assert rows == [(site.url("/aws/trn1.html"), sha, "aws_product_page/1.0", 200, len(body))]
    assert Archive(local_dir(db_path) / "archive").get(sha) == body


def test_ge_results_show_as_asset_checks(landed):
    outcomes = check_outcomes(landed)
    assert outcomes[("sources/aws_trn1", "ge_instance_prices")] is True
    assert outcomes[("sources/aws_trn2", "ge_instance_specs")] is True
    assert outcomes[("aws_instance_prices", "capacity_block_rate_matches_printed")] is True


HISTORY_TABLES = """SELECT table_name FROM duckdb_tables()
                    WHERE database_name = current_database() AND table_name LIKE '%_history'"""


def history_rows(db_path) -> dict[str, int]:
    """Rows in each history table."""
    tables = [t for (t,) in query(db_path, HISTORY_TABLES)]
    return {t: query(db_path, f"SELECT count(*) FROM {t}")[0][0] for t in tables}


def test_a_second_refresh_lands_no_row_and_bad_pages_keep_the_last_good_version(own_copy, sources_file, site, sources):
    """Every source refreshed again, three of them answering badly: the bad ones land nothing and keep their last
    good versions, the others are unchanged, and no history table gains a row."""
    db_path = own_copy
    before = history_rows(db_path)
    (last_fetch,) = query(db_path, "SELECT max(fetch_id) FROM fetch_log")[0]
    good = query(db_path, "SELECT * FROM aws_instance_price_history WHERE source_id IN ('aws_trn1', 'aws_inf2')")
    trn1_page = sample_path(next(s for s in sources if s.id == "aws_trn1")).read_text()
    no_price_column = trn1_page.replace("On-Demand Price/hr", "Hourly")
    inf2_page = sample_path(next(s for s in sources if s.id == "aws_inf2")).read_text()
    duplicated_row = inf2_page.replace("<tbody>\n", "<tbody>\n" + inf2_page.split("<tbody>\n")[1].split("\n")[0] + "\n")
    site.set("/aws/trn1.html", Reply(body=no_price_column.encode()))
    site.set("/aws/inf2.html", Reply(body=duplicated_row.encode()))
    site.set("/aws/capacity_blocks.html", Reply(status=503))

    result = run_refresh(sources_file, db_path)

    failures = failures_by_step(result)
    assert set(failures) == {"sources__aws_trn1", "sources__aws_inf2", "sources__aws_capacity_blocks"}
    assert "[aws_trn1] parse" in failures["sources__aws_trn1"] and "on_demand" in failures["sources__aws_trn1"]
    assert "[aws_inf2] validate" in failures["sources__aws_inf2"]
    assert "business_key" in failures["sources__aws_inf2"]
    assert "[aws_capacity_blocks] fetch" in failures["sources__aws_capacity_blocks"]
    assert "503" in failures["sources__aws_capacity_blocks"]
    # The GE failure is visible as a failed asset check, not only as a step failure.
    assert check_outcomes(result)[("sources/aws_inf2", "ge_instance_prices")] is False
    # Nothing landed from the bad pages; the previous versions are still the current ones.
    assert (
        query(db_path, "SELECT * FROM aws_instance_price_history WHERE source_id IN ('aws_trn1', 'aws_inf2')") == good
    )
    assert current_price(db_path, "trn1.2xlarge", "on_demand")[0] == Decimal("1.34")
    assert current_price(db_path, "trn2.48xlarge", "capacity_block")[0] == Decimal("35.7608")
    quarantined = query(db_path, "SELECT source_id, stage, raw_body FROM quarantine ORDER BY source_id")
    assert [(q[0], q[1]) for q in quarantined] == [("aws_inf2", "validate"), ("aws_trn1", "parse")]
    assert quarantined[1][2] == no_price_column.encode()
    assert query(
        db_path,
        """SELECT source_id, last_outcome FROM source_freshness
                             WHERE last_outcome <> 'unchanged' ORDER BY 1""",
    ) == [("aws_capacity_blocks", "fetch_failed"), ("aws_inf2", "quarantined"), ("aws_trn1", "quarantined")]
    # The sources that were fine still confirmed their rows in the same run, and none landed a row.
    others = query(
        db_path,
        """SELECT DISTINCT outcome FROM fetch_log WHERE fetch_id > ?
           AND source_id NOT IN ('aws_trn1', 'aws_inf2', 'aws_capacity_blocks')""",
        [last_fetch],
    )
    assert others == [("unchanged",)]
    assert query(
        db_path,
        """SELECT count(*) FROM fetch_log
                             WHERE outcome = 'unchanged' AND source_id IN ('aws_inf1', 'aws_trn2', 'aws_trn3')""",
    ) == [(3,)]
    assert history_rows(db_path) == before and len(before) > 5


def test_reparse_after_a_parser_fix_lands_the_corrected_history(site, empty_db_path, monkeypatch, tmp_path):
    db_path = empty_db_path  # a warehouse of its own, first landed with the parser bug
    # The job over one source: the bug and its fix concern aws_trn1 alone.
    sources_file = write_sources_file(
        tmp_path / "trn1.toml", [s for s in load_sources() if s.id == "aws_trn1"], site.base_url
    )
    real_columns = aws_product_page.columns

    def broken_columns(source):  # a parser bug: the on-demand header is no longer recognised
        return [
            c if c.key != "on_demand" else type(c)("on_demand", (r"^never$",), c.required) for c in real_columns(source)
        ]

    monkeypatch.setattr(aws_product_page, "columns", broken_columns)
    result = run_refresh(sources_file, db_path)
    assert "sources__aws_trn1" in failures_by_step(result)
    assert query(db_path, "SELECT count(*) FROM aws_instance_price_history WHERE source_id = 'aws_trn1'") == [(0,)]

    monkeypatch.setattr(aws_product_page, "columns", real_columns)  # the fix
    trn1 = next(s for s in load_sources(sources_file) if s.id == "aws_trn1")
    outcome = reparse_source(trn1, db_path=db_path, archive=Archive(local_dir(db_path) / "archive"))

    assert (outcome.fetches, outcome.landed, outcome.quarantined) == (1, 1, 0)
    # The fetch is no longer quarantined: its old quarantine row went with the replay.
    assert query(db_path, "SELECT count(*) FROM quarantine WHERE source_id = 'aws_trn1'") == [(0,)]
    assert current_price(db_path, "trn1.32xlarge", "on_demand")[2] == Decimal("1.3438")
    assert query(
        db_path,
        """SELECT DISTINCT p.valid_from = f.fetched_at, f.outcome
                             FROM aws_instance_price_history p JOIN fetch_log f USING (fetch_id)
                             WHERE p.source_id = 'aws_trn1'""",
    ) == [(True, "landed")]


CONTRACT = {
    "tables": "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() ORDER BY 1",
    "views": """SELECT view_name FROM duckdb_views()
                WHERE NOT internal AND database_name = current_database() ORDER BY 1""",
    "macros": """SELECT DISTINCT function_name FROM duckdb_functions()
                 WHERE function_type IN ('macro', 'table_macro') AND NOT internal
                   AND database_name = current_database() ORDER BY 1""",
    "comments": "SELECT object_kind, count(*) FROM catalog_comments GROUP BY ALL ORDER BY 1",
    "table comments": """SELECT count(*) FROM duckdb_tables()
                         WHERE database_name = current_database() AND comment IS NULL""",
}


def test_every_view_answers_and_the_catalog_is_the_same_on_both_backends(landed, db_path):
    """The public contract, read from the catalog: tables, views, macros and comments; every view answers."""
    with connect(db_path, read_only=True) as con:
        found = {name: con.execute(sql).fetchall() for name, sql in CONTRACT.items()}
        empty = [view for (view,) in found["views"] if con.execute(f'SELECT count(*) FROM "{view}"').fetchone() == (0,)]
    views = view_names([sql(path) for path in schema_files()])
    assert {view for (view,) in found["views"]} == views
    assert len(found["tables"]) == 33 and len(found["macros"]) >= 5  # the capture log made 33
    assert found["table comments"] == [(0,)]  # every table commented, in the catalog itself
    kinds = dict(found["comments"])
    assert kinds["view"] == len(views) and kinds["column"] > 700
    # Every view answers; after one refresh of the samples only those fed by pilots or by a second version are empty.
    assert empty == [
        "cost_per_work",
        "decision_gate",
        "deployment_break_even",
        "deployment_costs",
        "migration_payback",
        "pilot_results",
        "pilot_standing",
        "price_changes",
        "traffic_profiles",
        "training_costs",
        "training_runs",
        "training_standing",
    ]
