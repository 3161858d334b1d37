"""Fact tables (land_facts) on each backend: a new key is added, the same value adds nothing, a different value is a
correction (the open row closed, the new one added), NULLs compare as equal, and a snapshot that gives one key two
values is refused before anything is written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from pipelines.fx.landing import FX_RATES
from pipelines.pricelist.landing import PRICELIST_OFFERS
from warehouse.db import connect
from warehouse.transactions import transaction
from warehouse.versioning import LandCounts, Lineage, land_facts

T0 = datetime(2026, 9, 28, 6, 0, tzinfo=UTC)


@pytest.fixture
def con(backend_db_path):
    with connect(backend_db_path) as connection:
        yield connection


def lineage(day: int) -> Lineage:
    return Lineage(fetch_id=day + 1, source_url="http://127.0.0.1/x", fetched_at=T0 + timedelta(days=day),
                   sha256=f"{day:064x}", parser_version="test/1")  # fmt: skip


def rate(currency: str, usd: str) -> dict:
    return {"currency": currency, "rate_date": T0.date(), "units_per_eur": Decimal(usd)}


def offer(region: str, version: str | None, rows: int = 780) -> dict:
    return {"source_id": "aws_pricelist", "region_code": region, "offer_version": version,
            "publication_date": T0, "price_rows": rows}  # fmt: skip


def land(con, table, rows, day: int) -> LandCounts:
    with transaction(con):
        return land_facts(con, table, rows, lineage(day))


def test_new_keys_are_added_and_the_same_values_add_nothing(con):
    assert land(con, FX_RATES, [rate("USD", "1.1840"), rate("GBP", "0.87215")], 0) == LandCounts(2, 0, 0)
    assert land(con, FX_RATES, [rate("USD", "1.184000"), rate("GBP", "0.87215")], 1) == LandCounts(0, 0, 2)
    assert land(con, FX_RATES, [rate("JPY", "171.5")], 2) == LandCounts(1, 0, 0)
    rows = con.execute("SELECT currency, units_per_eur, fetch_id, valid_to FROM fx_rates ORDER BY currency").fetchall()
    assert rows == [("GBP", Decimal("0.872150"), 1, None), ("JPY", Decimal("171.500000"), 3, None),
                    ("USD", Decimal("1.184000"), 1, None)]  # fmt: skip


def test_a_different_value_closes_the_open_row_and_adds_the_correction(con):
    land(con, FX_RATES, [rate("USD", "1.1840"), rate("GBP", "0.87215")], 0)
    assert land(con, FX_RATES, [rate("USD", "1.1850"), rate("GBP", "0.87215")], 1) == LandCounts(1, 1, 1)
    usd = con.execute(
        "SELECT units_per_eur, fetched_at, valid_to FROM fx_rates WHERE currency = 'USD' ORDER BY fetched_at"
    ).fetchall()
    assert usd == [
        (Decimal("1.184000"), T0, T0 + timedelta(days=1)),
        (Decimal("1.185000"), T0 + timedelta(days=1), None),
    ]
    ((open_rows,),) = con.execute("SELECT count(*) FROM fx_rates WHERE valid_to IS NULL").fetchall()
    assert open_rows == 2


def test_nulls_compare_as_equal_and_a_null_that_gains_a_value_is_a_correction(con):
    assert land(con, PRICELIST_OFFERS, [offer("us-east-1", None)], 0) == LandCounts(1, 0, 0)
    assert land(con, PRICELIST_OFFERS, [offer("us-east-1", None)], 1) == LandCounts(0, 0, 1)
    assert land(con, PRICELIST_OFFERS, [offer("us-east-1", "20261001")], 2) == LandCounts(1, 1, 0)
    assert land(con, PRICELIST_OFFERS, [offer("eu-west-1", "20261001")], 3) == LandCounts(1, 0, 0)
    current = con.execute(
        "SELECT region_code, offer_version FROM aws_pricelist_offers WHERE valid_to IS NULL ORDER BY region_code"
    ).fetchall()
    assert current == [("eu-west-1", "20261001"), ("us-east-1", "20261001")]


def test_a_key_given_two_values_is_refused_and_nothing_is_written(con):
    land(con, FX_RATES, [rate("USD", "1.1840")], 0)
    with pytest.raises(ValueError, match=r"fx_rates: .*one value per key.*'USD'"):
        land(con, FX_RATES, [rate("USD", "1.1850"), rate("GBP", "0.87215"), rate("USD", "1.1860")], 1)
    assert con.execute("SELECT currency, units_per_eur, valid_to FROM fx_rates").fetchall() == [
        ("USD", Decimal("1.184000"), None)
    ]
