"""Price-list prices landed into a real DuckDB file: type-2 per region, the offer stamp carried, the old-file upgrade
of the page prices' region_code."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from pipelines.aws.landing import aws_snapshots
from pipelines.aws.records import InstancePrice, PriceKind, SourceBatch
from pipelines.pricelist.landing import landed_publication
from pipelines.pricelist.records import PriceListKind
from pipelines.pricelist.suite import validate_pricelist
from schemas.regions import aws_regions, region_code_for
from tests.support.pricelist_factory import PUBLISHED, SOURCE, T0, batch, land, price, us_east_1
from warehouse.db import connect
from warehouse.landing import FetchRecord, land_batch

HISTORY = "aws_pricelist_price_history"


@pytest.fixture
def con(tmp_path):
    with connect(tmp_path / "pricelist.duckdb") as connection:
        yield connection


def count(con, where: str = "TRUE") -> int:
    return con.execute(f"SELECT count(*) FROM {HISTORY} WHERE {where}").fetchone()[0]


def test_first_landing_opens_every_price_exactly(con):
    result = land(con, batch(us_east_1()), 0)
    assert (result.outcome, result.closed) == ("landed", 0)
    assert count(con, "valid_to IS NULL") == 5
    row = con.execute(
        f"""SELECT hourly_usd, upfront_usd, effective_usd_per_instance_hour, usd_per_accelerator_hour,
                   usd_per_accelerator_hour_4dp, location, accelerator_memory_gib, offer_version, publication_date,
                   source_url, sha256, parser_version, fetch_id = $fetch_id
            FROM {HISTORY} WHERE price_kind = 'reserved' AND lease_years = 3""",
        {"fetch_id": result.fetch_id},
    ).fetchone()
    hourly, upfront, effective, per_chip, per_chip_4dp, location, gib, version, published, url, sha, parser, ok = row
    assert (hourly, upfront) == (Decimal(0), Decimal(180000))
    assert effective == (Decimal(180000) / Decimal(3 * 8760)).quantize(Decimal("1e-18"))  # 6.849315068493150685
    assert per_chip == (effective / 16).quantize(Decimal("1e-18"))
    assert per_chip_4dp == Decimal("0.4281")
    assert (location, gib.quantize(Decimal("0.01"))) == ("US East (N. Virginia)", Decimal("476.84"))
    assert (version, published) == ("20260901000000", PUBLISHED)
    assert url.endswith("/us-east-1/index.csv") and sha == f"{0:064x}" and parser and ok


def test_an_unchanged_landing_adds_nothing(con):
    land(con, batch(us_east_1()), 0)
    again = land(con, batch(us_east_1()), 1)
    assert (again.outcome, again.inserted, again.closed, again.unchanged) == ("unchanged", 0, 0, 6)
    assert count(con) == 5
    assert con.execute("SELECT count(*) FROM aws_pricelist_offers").fetchone() == (1,)


def test_one_change_closes_one_version(con):
    land(con, batch(us_east_1()), 0)
    changed = [price("trn1.32xlarge", "22.00"), *us_east_1()[1:]]
    result = land(con, batch(changed), 1)
    assert (result.inserted, result.closed) == (1, 1)
    closed = con.execute(f"SELECT instance_type, hourly_usd, valid_to FROM {HISTORY} WHERE valid_to IS NOT NULL")
    assert closed.fetchall() == [("trn1.32xlarge", Decimal("21.50"), T0 + timedelta(days=1))]
    assert count(con, "valid_to IS NULL AND price_kind = 'on_demand' AND hourly_usd = 22") == 1


def test_a_new_offer_file_with_the_same_prices_opens_no_price_row(con):
    land(con, batch(us_east_1()), 0)
    later = PUBLISHED + timedelta(days=30)
    land(con, batch(us_east_1(), published=later, version="20261001000000"), 1)
    assert count(con) == 5  # offer_version and publication_date are carried, never compared
    offers = con.execute("SELECT offer_version, valid_to IS NULL FROM aws_pricelist_offers ORDER BY 1").fetchall()
    assert offers == [("20260901000000", False), ("20261001000000", True)]
    assert landed_publication(con, SOURCE, "us-east-1") == (later, "20261001000000")


def test_a_region_lands_without_touching_another(con):
    land(con, batch(us_east_1()), 0)
    land(con, batch([price("trn1.32xlarge", "24.00", "us-west-2")], "us-west-2"), 1)
    assert count(con, "valid_to IS NULL") == 6
    # A region whose file now prices no accelerator instance closes its own rows only.
    land(con, batch([], "us-west-2"), 2)
    assert count(con, "valid_to IS NOT NULL") == 1
    assert count(con, "valid_to IS NULL AND region_code = 'us-east-1'") == 5
    assert count(con, "valid_to IS NULL AND region_code = 'us-west-2'") == 0


def test_a_price_outside_the_files_region_is_refused(con):
    with pytest.raises(ValueError, match=r"offer file for us-east-1 carries prices for \['eu-west-1'\]"):
        land(con, batch([price("trn1.32xlarge", "21.50", "eu-west-1")]), 0)
    assert count(con) == 0


def test_region_reference_names_every_commercial_region_once():
    codes = [r.region_code for r in aws_regions()]
    assert len(codes) == len(set(codes))
    assert {"us-east-1", "us-east-2", "eu-central-2", "ap-southeast-4", "us-west-2-lax-1"} <= set(codes)
    assert region_code_for("US East (Ohio)") == "us-east-2"
    assert region_code_for("Europe (Frankfurt)") == region_code_for("EU (Frankfurt)") == "eu-central-1"
    assert region_code_for("Asia Pacific  (Melbourne)") == "ap-southeast-4"  # whitespace as printed is folded
    assert region_code_for("Atlantis (Central)") is None and region_code_for(None) is None


def capacity_blocks() -> SourceBatch:
    prices = [
        InstancePrice(
            instance_type="trn2.48xlarge",
            price_kind=PriceKind.CAPACITY_BLOCK,
            usd_per_instance_hour=Decimal("35.7608"),
            accelerator_count=16,
            region="US East (Ohio)",
        ),
        InstancePrice(
            instance_type="trn1.32xlarge",
            price_kind=PriceKind.ON_DEMAND,
            usd_per_instance_hour=Decimal("21.50"),
            accelerator_count=16,
        ),
    ]
    return SourceBatch(source_id="aws_capacity_blocks", parser_version="cb/1", specs=[], prices=prices)


def land_page(con, page: SourceBatch, day: int):
    fetch = FetchRecord(page.source_id, "http://127.0.0.1/cb.html", T0 + timedelta(days=day), sha256="c" * 64)
    return land_batch(con, fetch, page.parser_version, aws_snapshots(page))


def test_page_prices_gain_the_region_code_of_their_printed_region(con):
    land_page(con, capacity_blocks(), 0)
    rows = con.execute("SELECT region, region_code FROM aws_instance_price_history ORDER BY region NULLS LAST")
    assert rows.fetchall() == [("US East (Ohio)", "us-east-2"), (None, None)]


def test_an_old_file_gains_region_code_in_place_and_stays_unchanged(tmp_path):
    path = tmp_path / "old.duckdb"
    with connect(path) as con:
        land_page(con, capacity_blocks(), 0)
        # Make it a file of the previous release: no region_code column, hashes without it, schema to re-apply.
        con.execute("ALTER TABLE aws_instance_price_history DROP COLUMN region_code")
        con.execute("UPDATE aws_instance_price_history SET attributes_hash = 'from the previous release'")
        con.execute("DROP TABLE schema_version")
    with connect(path) as con:
        rows = con.execute("SELECT region, region_code FROM aws_instance_price_history WHERE region IS NOT NULL")
        assert rows.fetchall() == [("US East (Ohio)", "us-east-2")]
        again = land_page(con, capacity_blocks(), 1)
        assert (again.outcome, again.inserted, again.closed) == ("unchanged", 0, 0)


def test_the_spot_feed_lands_every_region_at_once_as_indicative(con):
    spot = [
        price("trn1.32xlarge", "6.45", region, PriceListKind.SPOT, indicative=True, location=None)
        for region in ("us-east-1", "us-west-2")
    ]
    feed = batch(spot, None, source_id="aws_spot")
    assert validate_pricelist(feed)[0].success
    assert land(con, feed, 0).inserted == 3  # two prices and the feed's offer row
    assert land(con, feed, 1).outcome == "unchanged"
    land(con, batch(spot[:1], None, source_id="aws_spot"), 2)  # us-west-2 gone from the feed: closed
    rows = con.execute(
        "SELECT region, price_kind, indicative FROM aws_instance_prices WHERE source_id = 'aws_spot'"
    ).fetchall()
    assert rows == [("us-east-1", "spot", True)]
    assert con.execute("SELECT region_code FROM aws_pricelist_offers WHERE valid_to IS NULL").fetchall() == [
        ("(all regions)",)
    ]
