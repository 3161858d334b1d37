"""The price-list rows in the public views: aws_instance_prices (source_family), aws_prices_by_region,
aws_price_reconciliation and its asset check, accelerator_hour_prices; every new column commented."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from assets.views import view_check
from pipelines.aws.kind import CHECK_PAGE_PRICE_MATCHES_A_REGION, INSTANCE_PRICES
from pipelines.aws.landing import aws_snapshots
from pipelines.aws.records import InstancePrice, InstanceSpec, PriceKind, SourceBatch
from pipelines.orchestration.resources import WarehouseResource
from tests.support.pricelist_factory import T0, batch, land, price, us_east_1
from warehouse.db import connect
from warehouse.landing import FetchRecord, land_batch

# Its module fixture lands a warehouse: every test of the module in one xdist worker, so it is landed once.
pytestmark = pytest.mark.xdist_group("pricelist_views")

PRICE_LIST_VIEWS = ("aws_prices_by_region", "aws_price_reconciliation")


def page_price(instance_type: str, usd: str, chips: int, kind=PriceKind.ON_DEMAND, region=None) -> InstancePrice:
    return InstancePrice(
        instance_type=instance_type,
        price_kind=kind,
        usd_per_instance_hour=Decimal(usd),
        accelerator_count=chips,
        region=region,
    )


def land_page(con, source_id: str, prices: list[InstancePrice]) -> None:
    specs = [
        InstanceSpec(instance_type=p.instance_type, accelerator="Trainium", accelerator_count=p.accelerator_count)
        for p in prices
    ]
    page = SourceBatch(source_id=source_id, parser_version="page/1", specs=specs, prices=prices)
    fetch = FetchRecord(source_id, f"http://127.0.0.1/{source_id}.html", T0, sha256="a" * 64)
    land_batch(con, fetch, "page/1", aws_snapshots(page))


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("views") / "views.duckdb"
    with connect(path) as con:
        land_page(
            con,
            "aws_trn1",
            [page_price("trn1.32xlarge", "21.50", 16), page_price("trn1.2xlarge", "1.34", 1)],
        )
        land_page(con, "aws_inf1", [page_price("inf1.xlarge", "0.228", 1)])
        cb = page_price("trn2.48xlarge", "35.7608", 16, PriceKind.CAPACITY_BLOCK, "US East (Ohio)")
        land_page(con, "aws_capacity_blocks", [cb])
        east = [price("trn1.32xlarge", "21.50"), price("trn1.2xlarge", "1.36"), *us_east_1()[2:]]
        land(con, batch(east), 0)
        land(
            con,
            batch(
                [price("trn1.32xlarge", "21.50", "us-west-2"), price("trn1.2xlarge", "1.40", "us-west-2")], "us-west-2"
            ),
            0,
        )
        land(con, batch([price("trn1.32xlarge", "23.82", "eu-west-1")], "eu-west-1"), 0)
    return path


@pytest.fixture
def con(db):
    with connect(db, read_only=True) as connection:
        yield connection


def test_reconciliation_agrees_in_every_region_with_the_page_price(con):
    rows = con.execute("""SELECT status, region_code, location, page_usd_per_instance_hour,
                                 price_list_usd_per_instance_hour, price_list_regions, agreeing_regions
                          FROM aws_price_reconciliation WHERE instance_type = 'trn1.32xlarge'
                          ORDER BY region_code""").fetchall()
    assert rows == [
        ("agrees", "us-east-1", "US East (N. Virginia)", Decimal("21.50"), Decimal("21.5"), 3, 2),
        ("agrees", "us-west-2", "US West (Oregon)", Decimal("21.50"), Decimal("21.5"), 3, 2),
    ]


def test_a_page_price_matching_no_region_shows_once_and_warns(con, db):
    rows = con.execute("""SELECT instance_type, status, region_code, price_list_regions,
                                 price_list_min_usd_per_instance_hour, price_list_max_usd_per_instance_hour
                          FROM aws_price_reconciliation WHERE status <> 'agrees' ORDER BY instance_type""").fetchall()
    assert rows == [
        ("inf1.xlarge", "not in price list", None, 0, None, None),
        ("trn1.2xlarge", "no matching region", None, 2, Decimal("1.36"), Decimal("1.40")),
    ]
    (check,) = [c for c in INSTANCE_PRICES.checks if c.name == CHECK_PAGE_PRICE_MATCHES_A_REGION]
    result = view_check(INSTANCE_PRICES.key, check)(warehouse=WarehouseResource(db_path=str(db)))
    assert result.passed is False and result.severity.value == "WARN"
    assert result.metadata["unmatched"].value == 1  # trn1.2xlarge; a type the price list lacks is no warning


def test_prices_by_region_names_each_types_cheapest_region_and_count(con):
    rows = con.execute("""SELECT region_code, usd_per_instance_hour, price_rank, region_count, cheapest_region_code,
                                 is_cheapest
                          FROM aws_prices_by_region
                          WHERE instance_type = 'trn1.32xlarge' AND price_kind = 'on_demand'
                          ORDER BY region_code""").fetchall()
    assert rows == [
        ("eu-west-1", Decimal("23.82"), 3, 3, "us-east-1", False),  # tie at 21.50: the first code alphabetically
        ("us-east-1", Decimal("21.50"), 1, 3, "us-east-1", True),
        ("us-west-2", Decimal("21.50"), 1, 3, "us-east-1", True),
    ]
    reserved = con.execute("""SELECT price_kind, purchase_option, region_count, upfront_usd FROM aws_prices_by_region
                              WHERE lease_years IS NOT NULL ORDER BY price_kind""").fetchall()
    assert reserved == [
        ("reserved_1y", "Partial Upfront", 1, Decimal("70000")),
        ("reserved_3y", "All Upfront", 1, Decimal("180000")),
    ]


def test_instance_prices_say_which_source_family_and_region_code(con):
    families = con.execute("""SELECT source_family, count(*), count(region_code) FROM aws_instance_prices
                              GROUP BY ALL ORDER BY 1""").fetchall()
    assert families == [("capacity_blocks_page", 1, 1), ("price_list", 8, 8), ("product_page", 3, 0)]
    cb = con.execute("SELECT region, region_code FROM aws_instance_prices WHERE price_kind = 'capacity_block'")
    assert cb.fetchall() == [("US East (Ohio)", "us-east-2")]
    as_of = con.execute("SELECT count(*) FROM aws_instance_prices_as_of($t)", {"t": T0 + timedelta(hours=1)})
    assert as_of.fetchone() == (12,)


def test_accelerator_hour_prices_cover_aws_nvidia_instances_from_the_price_list(con):
    rows = con.execute("""SELECT accelerator_model, accelerator_count, region, usd_per_accelerator_hour_4dp
                          FROM accelerator_hour_prices WHERE offering = 'p5.48xlarge'""").fetchall()
    assert rows == [("H100", 8, "US East (N. Virginia)", Decimal("6.8800"))]


def test_every_new_money_column_says_it_excludes_tax(con):
    money = con.execute(
        """SELECT table_name || '.' || column_name, comment FROM duckdb_columns()
           WHERE (table_name IN ('aws_pricelist_price_history', 'aws_prices_by_region', 'aws_price_reconciliation')
                  OR (table_name = 'aws_instance_prices' AND column_name IN ('hourly_usd', 'upfront_usd')))
             AND column_name LIKE '%usd%'"""
    ).fetchall()
    assert len(money) == 17
    assert [name for name, comment in money if "excluding tax" not in (comment or "")] == []
