"""Normalisation: billing units and GPU counts to USD per GPU-hour, FX at the fetch date, canonical names.

The property tests state the invariant the articles rely on: the same offer, however a provider expresses
it (per GPU or per node, per minute or per month, in USD or EUR), comes out as the same USD per GPU-hour.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from pipelines.fx.records import FxRate
from pipelines.gpu.gpu_names import CanonicalGpu, canonical
from pipelines.gpu.normalise import FxTable, MissingFxRate, listing, normalise
from pipelines.gpu.records import BillingPeriod, GpuBatch, GpuOffer, GpuPriceKind, PricePer

DAY = date(2026, 9, 28)
FX = FxTable.of(
    [
        FxRate(currency="USD", rate_date=date(2026, 9, 25), units_per_eur=Decimal("1.1700")),
        FxRate(currency="USD", rate_date=DAY, units_per_eur=Decimal("1.1840")),
        FxRate(currency="GBP", rate_date=DAY, units_per_eur=Decimal("0.8500")),
        FxRate(currency="JPY", rate_date=date(2026, 9, 25), units_per_eur=Decimal("170.00")),
    ]
)


def offer(
    amount: str,
    *,
    currency: str = "USD",
    per: PricePer = PricePer.GPU,
    period: BillingPeriod = BillingPeriod.HOUR,
    count: int = 1,
    name: str = "NVIDIA H100 SXM",
) -> GpuOffer:
    return GpuOffer(
        listing=f"{name} {per} {period} {currency}",
        gpu_name=name,
        gpu_count=count,
        price_kind=GpuPriceKind.ON_DEMAND,
        amount=Decimal(amount),
        currency=currency,
        price_per=per,
        period=period,
    )


def usd_per_gpu_hour(o: GpuOffer, on: date = DAY) -> Decimal:
    return listing("P", o, FX, on).usd_per_gpu_hour


@pytest.mark.parametrize(
    ("amount", "per", "period", "count", "expected"),
    [
        ("2.50", PricePer.GPU, BillingPeriod.HOUR, 1, "2.5"),
        ("68.80", PricePer.INSTANCE, BillingPeriod.HOUR, 8, "8.6"),  # CoreWeave: per node / 8 GPUs
        ("0.05", PricePer.GPU, BillingPeriod.MINUTE, 1, "3"),  # per minute x 60
        ("0.29", PricePer.INSTANCE, BillingPeriod.MINUTE, 8, "2.175"),  # x 60 / 8
        ("60", PricePer.GPU, BillingPeriod.DAY, 1, "2.5"),  # per day / 24
        ("420", PricePer.GPU, BillingPeriod.WEEK, 1, "2.5"),  # per week / 168
        ("1825", PricePer.GPU, BillingPeriod.MONTH, 1, "2.5"),  # per month / 730
        ("10", PricePer.GPU, BillingPeriod.DAY, 1, "0.416666666666666667"),  # non-terminating: 18 dp half-up
    ],
)
def test_units_and_counts(amount, per, period, count, expected):
    assert usd_per_gpu_hour(offer(amount, per=per, period=period, count=count)) == Decimal(expected)


def test_eur_converts_at_the_fetch_dates_rate_and_records_it():
    converted = listing("LeaderGPU", offer("7.50", currency="EUR", period=BillingPeriod.DAY), FX, DAY)
    assert (converted.usd_per_currency_unit, converted.fx_rate_date) == (Decimal("1.1840"), DAY)
    assert converted.usd_per_gpu_hour == Decimal("0.37")
    assert (converted.original_amount, converted.original_currency, converted.original_unit) == (
        Decimal("7.50"),
        "EUR",
        "per GPU-day",
    )


def test_the_latest_earlier_rate_is_used_and_named():
    later = listing("P", offer("1", currency="EUR"), FX, date(2026, 10, 3))  # weekend: no newer fixing
    assert (later.usd_per_currency_unit, later.fx_rate_date) == (Decimal("1.1840"), DAY)
    earlier = listing("P", offer("1", currency="EUR"), FX, date(2026, 9, 26))
    assert (earlier.usd_per_currency_unit, earlier.fx_rate_date) == (Decimal("1.1700"), date(2026, 9, 25))


def test_cross_rates_go_through_eur_on_one_fixing():
    gbp = listing("P", offer("1", currency="GBP"), FX, DAY)
    assert gbp.usd_per_currency_unit == Decimal("1.3929411765")  # 1.1840 / 0.85, 10 dp
    jpy = listing("P", offer("100", currency="JPY"), FX, DAY)  # JPY's latest fixing is the 25th: USD of the 25th
    assert (jpy.usd_per_currency_unit, jpy.fx_rate_date) == (Decimal("0.0068823529"), date(2026, 9, 25))


@pytest.mark.parametrize(
    ("currency", "on", "message"),
    [
        ("CHF", DAY, "no ECB rate for CHF on or before 2026-09-28"),
        ("EUR", date(2026, 9, 1), "no ECB rate for USD on or before 2026-09-01"),  # the EUR leg needs USD's rate
        ("USD2", DAY, "no ECB rate for USD2 on or before 2026-09-28"),  # near USD is not USD
    ],
)
def test_a_currency_without_a_rate_is_refused(currency, on, message):
    # model_copy skips validation, so a code the offer itself would refuse still reaches the FX lookup.
    unrated = offer("1").model_copy(update={"currency": currency})
    with pytest.raises(MissingFxRate, match=message):
        listing("P", unrated, FX, on)


def test_an_offer_in_a_malformed_currency_code_is_refused():
    with pytest.raises(ValidationError, match=r"currency\s+String should match pattern '\^\[A-Z\]\{3\}\$'"):
        offer("1", currency="USD2")


def test_normalise_keeps_unknown_names_and_reports_them():
    batch = GpuBatch(
        source_id="gpu_test",
        parser_version="t/1",
        provider="P",
        unpriced=["GB200 NVL72"],
        offers=[offer("2.5"), offer("3.45", name="AMD MI300X 192GB")],
    )
    result = normalise(batch, FX, DAY)
    assert [item.gpu_model for item in result.listings] == ["H100", None]
    assert result.unknown_names == ["AMD MI300X 192GB"] and result.unpriced == ["GB200 NVL72"]


# -- rate age: DAY's rate, converted some days later --------------------------------------------------------


@pytest.mark.parametrize(("days_later", "stale"), [(0, False), (7, False), (8, True), (64, True)])
def test_a_rate_older_than_seven_days_is_flagged_stale_and_still_converts(days_later, stale):
    converted = listing("P", offer("7.50", currency="EUR"), FX, DAY + timedelta(days=days_later))
    assert converted.fx_rate_stale is stale
    assert (converted.usd_per_currency_unit, converted.fx_rate_date) == (Decimal("1.1840"), DAY)


@pytest.mark.parametrize(
    ("max_age", "days_later", "stale"), [(0, 0, False), (0, 1, True), (30, 30, False), (30, 31, True)]
)
def test_the_configured_age_limit_is_honoured(max_age, days_later, stale):
    on = DAY + timedelta(days=days_later)
    assert listing("P", offer("1", currency="GBP"), FX, on, max_age).fx_rate_stale is stale


def test_usd_uses_no_rate_so_it_is_never_stale():
    usd = listing("P", offer("2.50"), FX, DAY + timedelta(days=400))
    assert (usd.fx_rate_date, usd.fx_rate_stale) == (None, None)


def test_a_cross_rate_is_aged_by_its_own_fixing():
    # JPY's latest fixing is the 25th, the USD one the 28th: the JPY conversion is three days older.
    on = DAY + timedelta(days=5)
    assert listing("P", offer("100", currency="JPY"), FX, on).fx_rate_stale is True
    assert listing("P", offer("1", currency="GBP"), FX, on).fx_rate_stale is False


def test_normalise_reports_each_stale_rate_once_with_its_age():
    batch = GpuBatch(
        source_id="gpu_test",
        parser_version="t/1",
        provider="P",
        offers=[
            offer("2.5"),
            offer("1", currency="EUR"),
            offer("2", currency="EUR", name="H200 SXM"),
            offer("100", currency="JPY"),
        ],
    )
    result = normalise(batch, FX, DAY + timedelta(days=9), max_rate_age_days=10)
    assert [(s.currency, s.rate_date, s.age_days, s.listings) for s in result.stale_rates] == [
        ("JPY", date(2026, 9, 25), 12, 1)
    ]
    assert [item.fx_rate_stale for item in result.listings] == [None, False, False, True]
    default_limit = normalise(batch, FX, DAY + timedelta(days=9))
    assert [s.model_dump() for s in default_limit.stale_rates] == [
        {"currency": "EUR", "rate_date": DAY, "age_days": 9, "listings": 2},
        {"currency": "JPY", "rate_date": date(2026, 9, 25), "age_days": 12, "listings": 1},
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("H100 SXM", ("H100", "SXM", "80")),
        ("NVIDIA H100 80GB HBM3", ("H100", "SXM", "80")),
        ("HGX H100", ("H100", "SXM", "80")),
        ("H100 PCIe", ("H100", "PCIe", "80")),
        ("H100 NVL", ("H100", "NVL", "94")),
        ("H200 SXM", ("H200", "SXM", "141")),
        ("NVIDIA HGX B200", ("B200", "SXM", "180")),
        ("GH200", ("GH200", None, "96")),
        ("NVIDIA L4", ("L4", None, "24")),
        ("L40S", ("L40S", None, "48")),
        ("1x NVIDIA A10", ("A10", None, "24")),
        ("A10G", ("A10G", None, "24")),
        ("A100 80GB", ("A100", None, "80")),
        ("NVIDIA A100 PCIe 80GB", ("A100", "PCIe", "80")),
        ("NVIDIA GeForce RTX 4090", ("RTX 4090", None, "24")),
    ],
)
def test_canonical_names(name, expected):
    found = canonical(name)
    assert (found.model, found.variant, str(found.memory_gb)) == expected


@pytest.mark.parametrize("name", ["AMD MI300X", "RTX PRO 5000", "Gaudi 3", "A1000", "H1000"])
def test_unknown_names_are_not_guessed(name):
    assert canonical(name) is None


@pytest.mark.parametrize(
    "name", ["RTX PRO 6000 S", "NVIDIA RTX PRO 6000 Blackwell Server Edition", "NVIDIA RTX PRO 6000"]
)
def test_every_edition_of_the_rtx_pro_6000_is_one_model_with_its_96_gb(name):
    assert canonical(name) == CanonicalGpu("RTX PRO 6000", None, Decimal("96"))


cents = st.integers(min_value=1, max_value=2_000_000).map(lambda n: Decimal(n) * Decimal("0.06") / 100)
counts = st.sampled_from([1, 2, 4, 8, 16])


@given(hourly=cents, gpus=counts)
def test_usd_per_gpu_hour_is_invariant_to_how_the_offer_is_expressed(hourly: Decimal, gpus: int):
    """The same price: per GPU-hour, per node-hour, per minute, day, week or month, in USD or in EUR."""
    eur_per_usd = Decimal(1) / Decimal("1.25")  # 1.25 USD per EUR: every EUR amount below is exact
    fx = FxTable.of([FxRate(currency="USD", rate_date=DAY, units_per_eur=Decimal("1.25"))])
    expressions = [
        offer(str(hourly)),
        offer(str(hourly * gpus), per=PricePer.INSTANCE, count=gpus),
        offer(str(hourly / 60), period=BillingPeriod.MINUTE),  # hourly is a multiple of 0.0006: exact
        offer(str(hourly * 24 * gpus), per=PricePer.INSTANCE, period=BillingPeriod.DAY, count=gpus),
        offer(str(hourly * 168), period=BillingPeriod.WEEK),
        offer(str(hourly * 730 * gpus), per=PricePer.INSTANCE, period=BillingPeriod.MONTH, count=gpus),
        offer(str(hourly * eur_per_usd), currency="EUR"),
        offer(str(hourly * gpus * 60 * eur_per_usd / 60), currency="EUR", per=PricePer.INSTANCE, count=gpus),
    ]
    results = {listing("P", o, fx, DAY).usd_per_gpu_hour for o in expressions}
    assert results == {hourly.quantize(Decimal("1e-18"))}
