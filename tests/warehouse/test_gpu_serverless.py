"""Serverless GPU prices: the offer's billing terms, read from what a page says; the exact per-second price and
its GPU-hour equivalent; and a warehouse made before the serverless kinds, upgraded so it admits them."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import duckdb
import pytest
from pydantic import ValidationError

from pipelines import gpu
from pipelines.errors import ParseError
from pipelines.gpu.normalise import FxTable, listing
from pipelines.gpu.readers.billing_terms import serverless_billing, terms_on_page
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, PricePer, ServerlessBilling
from pipelines.sources.file import SourceSpec
from tests.support.backends import warehouse_at
from warehouse.db import connect
from warehouse.sql_files import sql

URL = "https://example.test/serverless/pricing"
TERMS = ServerlessBilling(increment_seconds=1, idle_timeout_seconds=5, terms="as printed", terms_url=URL)


def source(**options: object) -> SourceSpec:
    return SourceSpec(
        id="gpu_example_serverless",
        adapter="gpu_hyperstack",
        url=URL,
        sample="gpu/hyperstack.html",
        options=dict(options),
    )


def offer(**changes: object) -> GpuOffer:
    fields: dict[str, object] = {
        "listing": "H100 PRO",
        "gpu_name": "H100 PRO",
        "gpu_count": 1,
        "price_kind": GpuPriceKind.SERVERLESS,
        "amount": Decimal("0.00116"),
        "currency": "USD",
        "price_per": PricePer.GPU,
        "period": BillingPeriod.SECOND,
        "serverless": TERMS,
    }
    return GpuOffer.model_validate(fields | changes)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Workers are billed from when they start until they fully stop, rounded up to the nearest second. "
            "Start-up (model loading), execution and the idle timeout are billed. The default idle timeout is "
            "5 seconds.",
            {"increment_seconds": 1, "idle_timeout_seconds": 5, "cold_start_billed": True},
        ),
        (
            "You are billed per second. Spin-up is not billed. Endpoints keep warm for 3 minutes by default.",
            {"increment_seconds": 1, "idle_timeout_seconds": 180, "cold_start_billed": False},
        ),
        ("Usage is metered with per-minute billing.", {"increment_seconds": 60}),
        ("Prices exclude VAT.", {}),
    ],
    ids=["runpod_wording", "keep_warm_minutes", "per_minute", "nothing_stated"],
)
def test_terms_are_read_from_the_sentences_that_state_them(text, expected):
    found = {k: v for k, v in terms_on_page(text).items() if not k.endswith("_sentence")}
    assert found == expected


def test_the_page_wins_and_the_sources_file_fills_a_gap_only_with_its_page_named():
    page = "Billed per second, rounded up to the nearest second."
    declared = {"idle_timeout_seconds": 60, "terms_url": "https://example.test/docs/cold-start"}
    terms = serverless_billing(page, source(serverless=declared | {"increment_seconds": 60}))
    assert (terms.increment_seconds, terms.idle_timeout_seconds, terms.cold_start_billed) == (1, 60, None)
    assert terms.terms_url == f"{URL} ; https://example.test/docs/cold-start"
    assert "idle_timeout_seconds = 60" in terms.terms and "rounded up to the nearest second" in terms.terms
    with pytest.raises(ParseError, match=r"gpu_example_serverless.*without terms_url"):
        serverless_billing(page, source(serverless={"idle_timeout_seconds": 60}))


def test_a_page_that_states_no_increment_is_refused_naming_the_source():
    with pytest.raises(ParseError, match=r"gpu_example_serverless.*no billed increment"):
        serverless_billing("Prices exclude VAT. Contact sales for volume discounts.", source())


def test_a_serverless_price_needs_its_terms_and_a_per_second_period():
    with pytest.raises(ValidationError, match="needs its billing terms"):
        offer(serverless=None)
    with pytest.raises(ValidationError, match="per second, not per hour"):
        offer(period=BillingPeriod.HOUR)
    with pytest.raises(ValidationError, match="serverless billing terms on a on_demand price"):
        offer(price_kind=GpuPriceKind.ON_DEMAND, period=BillingPeriod.HOUR)


def test_the_per_second_price_is_exact_and_its_gpu_hour_is_3600_seconds():
    single = listing("RunPod", offer(), FxTable(), date(2026, 12, 3))
    assert single.usd_per_gpu_second == Decimal("0.00116")
    assert single.usd_per_gpu_hour == Decimal("4.176")  # 0.00116 x 3600, not a rounded display figure
    assert (single.billing_increment_seconds, single.idle_timeout_seconds) == (1, 5)
    eight = listing(
        "Replicate",
        offer(gpu_count=8, price_per=PricePer.INSTANCE, amount=Decimal("0.0122")),
        FxTable(),
        date(2026, 12, 3),
    )
    assert eight.usd_per_gpu_second == Decimal("0.001525")
    assert eight.usd_per_gpu_hour == Decimal("5.49")
    hourly = listing(
        "P",
        offer(price_kind=GpuPriceKind.ON_DEMAND, period=BillingPeriod.HOUR, serverless=None, amount=Decimal("2.5")),
        FxTable(),
        date(2026, 12, 3),
    )
    assert hourly.usd_per_gpu_second is None and hourly.billing_increment_seconds is None


# The CHECK lists as they were before the serverless kinds and per-second prices (and the kinds with a term, and
# per-term prices, which came later).
OLD_CHECKS = {
    r",\s*'reserved_1y'[^)]*'serverless_active'": "",
    r"'second', 'minute'": "'minute'",
    r",\s*'year',\s*'3 years'": "",
}
OLD_ROW = """
INSERT INTO gpu_listing_history (source_id, provider, listing, gpu_name, gpu_count, price_kind, original_amount,
    original_currency, original_unit, price_per, period, usd_per_currency_unit, usd_per_gpu_hour,
    usd_per_gpu_hour_4dp, stock_status, offer_count, attributes_hash, valid_from, fetch_id, source_url, fetched_at,
    sha256, parser_version)
VALUES ('gpu_p', 'P', 'H100', 'H100', 1, 'on_demand', 2.5, 'USD', 'per GPU-hour', 'gpu', 'hour', 1, 2.5, 2.5,
    'unknown', 1, 'old', now(), 1, 'https://example.test/', now(), 'x', 'p/1.0')
"""
SERVERLESS_ROW = OLD_ROW.replace("'on_demand', 2.5", "'serverless', 0.00116").replace("'hour', 1", "'second', 1")


def older_table_ddl() -> str:
    text = sql(gpu.SCHEMA.file("tables"))
    for new, old in OLD_CHECKS.items():
        text, replaced = re.subn(new, old, text)
        assert replaced == 1, new  # the test follows the schema file: a reworded CHECK must be mirrored here
    return text


def test_a_file_whose_checks_predate_serverless_is_rebuilt_once_keeping_every_row(tmp_path):
    path = tmp_path / "old.duckdb"
    with connect(path) as con:
        con.execute("DROP TABLE gpu_listing_history")
        con.execute(older_table_ddl())
        con.execute(OLD_ROW)
        with pytest.raises(
            duckdb.ConstraintException, match=r"CHECK constraint failed on table gpu_listing_history .*price_kind IN"
        ):
            con.execute(SERVERLESS_ROW)  # what the older file refuses
        con.execute("DELETE FROM schema_version")
    with connect(path) as con:
        assert con.execute(
            "SELECT listing, price_kind, attributes_hash <> 'old' FROM gpu_listing_history"
        ).fetchall() == [("H100", "on_demand", True)]
        con.execute(SERVERLESS_ROW.replace("'H100', 'H100'", "'H100 PRO', 'H100 PRO'"))
        con.execute(OLD_ROW.replace("'on_demand', 2.5", "'reserved_3y', 65700").replace("'hour', 1", "'3 years', 1"))
        # The rebuilt table takes a price printed to nine places (Google's) whole.
        con.execute(
            OLD_ROW.replace("'H100', 'H100'", "'a3-megagpu-8g', 'H100'").replace("2.5, 'USD'", "93.400712807, 'USD'")
        )
        (printed,) = con.execute(
            "SELECT original_amount FROM gpu_listing_history WHERE listing = 'a3-megagpu-8g'"
        ).fetchone()
        assert printed == Decimal("93.400712807")
        (comment,) = con.execute(
            """SELECT comment FROM duckdb_columns()
               WHERE table_name = 'gpu_listing_history' AND column_name = 'usd_per_gpu_second'"""
        ).fetchone()
    assert "exact USD per GPU-second" in comment


def test_a_lake_whose_printed_prices_are_narrower_is_widened_in_place(tmp_path, monkeypatch):
    """A lake keeps no CHECKs, so it is never rebuilt: an older lake's prices as printed (six places) are widened in
    place when it next opens, keeping its rows, and then take Google's nine places whole."""
    with warehouse_at("ducklake", tmp_path, monkeypatch) as lake:
        with connect(lake) as con:
            con.execute(OLD_ROW)
            con.execute(
                "CREATE OR REPLACE TABLE gpu_listing_history AS SELECT * REPLACE "
                "(CAST(original_amount AS DECIMAL(18, 6)) AS original_amount) FROM gpu_listing_history"
            )
            con.execute("DELETE FROM schema_version")  # as a lake made before the wider type
        with connect(lake) as con:
            (kind,) = con.execute(TYPE_OF_AMOUNT).fetchone()
            con.execute(OLD_ROW.replace("'H100', 'H100'", "'g', 'H100'").replace("2.5, 'USD'", "93.400712807, 'USD'"))
            amounts = con.execute("SELECT listing, original_amount FROM gpu_listing_history ORDER BY 1").fetchall()
    assert kind == "DECIMAL(24,12)"
    assert amounts == [("H100", Decimal("2.5")), ("g", Decimal("93.400712807"))]


TYPE_OF_AMOUNT = """SELECT data_type FROM duckdb_columns() WHERE database_name = current_database()
AND table_name = 'gpu_listing_history' AND column_name = 'original_amount'"""
