"""The bundled price-list samples, read by the offer parser, pass the gate and land beside the bundled pages: the
views say what the price list promises (trn1.32xlarge agrees with its product page in us-east-1, no Capacity-Block-only
type gets an on-demand row, a region with no accelerators lands empty, Capacity Blocks page rows get codes)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipelines.adapters import parser_for
from pipelines.aws.landing import aws_snapshots
from pipelines.kinds import kind_named
from pipelines.pricelist.offer_csv import parse_offer_csv
from pipelines.sources.file import load_sources, sample_path
from pipelines.sources.locations import SAMPLES_DIR
from warehouse.db import connect
from warehouse.landing import FetchRecord, land_batch

# Its module fixture lands a warehouse: every test of the module in one xdist worker, so it is landed once.
pytestmark = pytest.mark.xdist_group("pricelist_samples_land")

REGIONS = ("us-east-1", "us-east-2", "eu-south-2")
T0 = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
KIND = kind_named("pricelist")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("samples") / "samples.duckdb"
    batches = {
        region: parse_offer_csv(
            SAMPLES_DIR / "aws" / "pricelist" / f"{region}.csv", "aws_pricelist", region_code=region
        )
        for region in REGIONS
    }
    reports = KIND.validate_many({f"aws_pricelist_{r}": (None, b) for r, b in batches.items()})
    assert all(report.success for (report,) in reports.values()), reports
    with connect(path) as con:
        for source in load_sources():
            if source.adapter in ("aws_product_page", "aws_capacity_blocks"):
                page = parser_for(source.adapter)(sample_path(source).read_bytes(), source)
                fetch = FetchRecord(source.id, str(source.url), T0, sha256="a" * 64)
                land_batch(con, fetch, page.parser_version, aws_snapshots(page))
        for region, batch in batches.items():
            fetch = FetchRecord("aws_pricelist", f"http://127.0.0.1/{region}/index.csv", T0, sha256="b" * 64)
            land_batch(con, fetch, batch.parser_version, KIND.snapshots(batch))
    return path


@pytest.fixture
def con(db):
    with connect(db, read_only=True) as connection:
        yield connection


def test_trn1_32xlarge_page_price_agrees_with_the_price_list_in_us_east_1(con):
    rows = con.execute("""SELECT region_code, status FROM aws_price_reconciliation
                          WHERE instance_type = 'trn1.32xlarge' ORDER BY region_code""").fetchall()
    assert ("us-east-1", "agrees") in rows
    assert con.execute(
        "SELECT count(*) FROM aws_price_reconciliation WHERE status = 'no matching region'"
    ).fetchone() == (0,)


def test_capacity_block_only_types_have_no_on_demand_row(con):
    rows = con.execute("""SELECT instance_type, region_code FROM aws_instance_prices
                          WHERE source_family = 'price_list' AND instance_type IN ('p5e.48xlarge', 'trn2.48xlarge')""")
    assert rows.fetchall() == []


def test_every_region_lands_and_the_one_without_accelerators_is_empty(con):
    offers = con.execute("SELECT region_code, price_rows FROM aws_pricelist_offers ORDER BY 1").fetchall()
    assert [region for region, _ in offers] == sorted(REGIONS)
    assert dict(offers)["eu-south-2"] == 0 and dict(offers)["us-east-1"] > 0


def test_capacity_blocks_page_rows_carry_the_code_of_their_printed_location(con):
    rows = con.execute("""SELECT DISTINCT region, region_code FROM aws_instance_prices
                          WHERE source_family = 'capacity_blocks_page' ORDER BY region_code""").fetchall()
    assert rows and all(code is not None for _, code in rows), rows
    assert ("US East (Ohio)", "us-east-2") in rows
