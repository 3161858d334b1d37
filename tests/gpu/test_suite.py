"""The GPU listings gate compares money exactly: Decimal objects against whole micro-unit bounds."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pandas as pd
import pytest

from bench.gate import sample_batches
from pipelines.gpu.records import BillingPeriod, GpuListing, GpuPriceKind, PricePer, StockStatus
from pipelines.gpu.suite import LISTINGS_SUITE, validate_listings, validate_listings_many
from schemas import gx_stacked
from schemas.gx_frames import float_columns
from tests.support.ge_frames import BETWEEN, NOT_NULL, failures, spy_on_frames


def listing_fields(usd: str, name: str = "1x H100") -> dict:
    return {
        "provider": "P",
        "listing": name,
        "gpu_name": "H100 80GB",
        "gpu_model": "H100",
        "gpu_variant": None,
        "gpu_memory_gib": Decimal("80"),
        "gpu_count": 1,
        "price_kind": GpuPriceKind.ON_DEMAND,
        "original_amount": Decimal(usd),
        "original_currency": "USD",
        "original_unit": "per GPU-hour",
        "price_per": PricePer.GPU,
        "period": BillingPeriod.HOUR,
        "usd_per_currency_unit": Decimal(1),
        "fx_rate_date": None,
        "fx_rate_stale": None,
        "stock_status": StockStatus.IN_STOCK,
        "region": None,
        "offer_count": 1,
    }


def listings(*usd: str) -> list[GpuListing]:
    return [GpuListing(**listing_fields(amount, f"{i}x H100")) for i, amount in enumerate(usd, start=1)]


@pytest.fixture
def frames_to_ge(monkeypatch: pytest.MonkeyPatch) -> dict[str, pd.DataFrame]:
    return spy_on_frames(monkeypatch, gx_stacked)  # the listings suite is a RowSuite: its frames pass there


def test_ge_gets_listing_money_as_decimal_micro_units(frames_to_ge: dict[str, pd.DataFrame]) -> None:
    assert all(r.success for r in validate_listings(listings("0.01", "2.5")))
    data = frames_to_ge[LISTINGS_SUITE]
    assert list(data["usd_per_gpu_hour"]) == [Decimal("10000"), Decimal("2500000")]
    assert list(data["original_amount"]) == [Decimal("10000"), Decimal("2500000")]
    assert list(data["gpu_count"]) == [Decimal(1)] * 2 and list(data["usd_per_currency_unit"]) == [Decimal(1)] * 2
    assert all(data[c].dtype == object for c in ("usd_per_gpu_hour", "usd_per_gpu_hour_4dp", "gpu_memory_gib"))
    assert float_columns(data) == []


def test_listing_exactly_at_either_bound_passes() -> None:
    # The trap a float bound sets: GE would hold 0.01 as a float, which is slightly above Decimal 0.01.
    assert not Decimal("0.01") >= 0.01
    assert failures(validate_listings(listings("0.01", "100", "100.000000000000000000"))) == {}


@pytest.mark.parametrize("usd", ["0.009999", "0.009999999999999999", "100.000001", "100.000000000000000001"])
def test_listing_a_hair_outside_the_band_fails_and_is_quoted_exactly(usd: str) -> None:
    assert float(Decimal("100.000000000000000001")) == 100.0  # a float comparison would let the last one pass
    found = failures(validate_listings(listings("2.5", usd)))
    assert list(found) == [(BETWEEN, "usd_per_gpu_hour")]
    (quoted,) = found[(BETWEEN, "usd_per_gpu_hour")]
    assert quoted == str(listings(usd)[0].usd_per_gpu_hour) and Decimal(quoted) == Decimal(usd)  # 18 decimals


def test_band_bounds_that_no_float_holds_compare_exactly() -> None:
    assert Decimal(0.3) != Decimal("0.3")  # noqa: RUF032 - the float's exact value is the point
    assert float(Decimal("0.299999999999999999")) == 0.3
    reports = validate_listings(listings("0.3", "0.299999999999999999"), min_usd_per_gpu_hour=Decimal("0.3"))
    assert failures(reports) == {(BETWEEN, "usd_per_gpu_hour"): ["0.299999999999999999"]}


@pytest.mark.parametrize("amount", ["abc", None])
def test_non_numeric_amount_is_reported_by_the_not_null_checks(amount: str | None) -> None:
    broken = GpuListing.model_construct(**listing_fields("1", "broken") | {"original_amount": amount})
    reports = validate_listings([*listings("2.5"), broken])
    assert failures(reports) == {(NOT_NULL, "original_amount"): [amount], (NOT_NULL, "usd_per_gpu_hour"): [None]}


# --- many sources in one run ----------------------------------------------------------------------------


def test_stacked_listing_reports_equal_alone_on_the_gpu_samples() -> None:
    samples = {s.source.id: s.batch.listings for s in sample_batches() if s.kind.name == "gpu"}
    stacked = validate_listings_many(samples)
    assert stacked == {source_id: validate_listings(items) for source_id, items in samples.items()}
    assert len(stacked) == 16 and all(
        report.success for found in stacked.values() for report in found
    )  # 12 + 3 serverless


def test_stacked_listing_reports_equal_alone_on_broken_batches() -> None:
    broken = GpuListing.model_construct(**listing_fields("1", "broken") | {"original_amount": "abc"})
    batches = {
        "good": listings("2.5", "3"),
        "same_keys_as_good": listings("2.5", "3"),  # another provider: no duplicates of "good"'s keys
        "duplicate": [*listings("2.5"), *listings("2.6")],
        "out_of_band": listings("2.5", "100.000000000000000001", "0.009999"),
        "not_numeric": [*listings("2.5"), broken],
        "empty": [],
        "many_bad": [GpuListing(**listing_fields("500", f"{i}x H100")) for i in range(25)],
    }
    stacked = validate_listings_many(batches)
    assert stacked == {source_id: validate_listings(items) for source_id, items in batches.items()}
    assert failures(stacked["same_keys_as_good"]) == {}
    assert list(failures(stacked["duplicate"])) == [("expect_column_values_to_be_unique", "business_key")]
    assert failures(stacked["out_of_band"]) == {
        (BETWEEN, "usd_per_gpu_hour"): ["100.000000000000000001", "0.009999000000000000"]
    }
    (many,) = [o for o in stacked["many_bad"][0].outcomes if not o.success]
    assert (many.unexpected_count, len(many.partial_unexpected)) == (25, 20)


def test_the_shared_context_gives_each_thread_its_own_report() -> None:
    batches = [listings("2.5"), listings("2.5", "500"), [*listings("2.5"), *listings("2.6")], []]
    serial = [validate_listings(items) for items in batches]
    with ThreadPoolExecutor(max_workers=len(batches)) as pool:
        assert list(pool.map(validate_listings, batches)) == serial
    assert [all(r.success for r in found) for found in serial] == [True, False, False, False]
