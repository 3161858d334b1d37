"""ECB reference rates recorded from the live service by others (tests/recorded/fx/, provenance in SOURCES.md),
read through the real fx_ecb adapter: the rates land as the Decimals the files print, on the dates they print."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from pipelines.adapters import fx_ecb
from pipelines.fx.records import FxBatch
from pipelines.sources.file import load_sources
from tests.support.paths import RECORDED

D = Decimal
FX = RECORDED / "fx"
SPEC = next(s for s in load_sources() if s.id == "fx_ecb")


def parse(name: str) -> FxBatch:
    return fx_ecb.parse((FX / name).read_bytes(), SPEC)


def rates(batch: FxBatch) -> dict[tuple[date, str], Decimal]:
    return {(r.rate_date, r.currency): r.units_per_eur for r in batch.rates}


@pytest.mark.parametrize(
    ("name", "day", "count", "printed"),
    [
        # (file, its one date, currencies, {currency: rate as printed})
        (
            "eurofxref-daily_2018-06-11.xml",
            date(2018, 6, 11),
            32,
            {"USD": "1.1790", "JPY": "129.62", "GBP": "0.88180", "IDR": "16477.11", "ZAR": "15.4991"},
        ),
        (
            "eurofxref-daily_2015-01-07.xml",
            date(2015, 1, 7),
            31,
            {"USD": "1.1831", "JPY": "141.17", "BGN": "1.9558", "CZK": "27.783"},
        ),
    ],
)
def test_a_recorded_daily_file_lands_every_rate_as_printed(
    name: str, day: date, count: int, printed: dict[str, str]
) -> None:
    batch = parse(name)
    assert {r.rate_date for r in batch.rates} == {day}
    assert len(batch.rates) == count
    found = rates(batch)
    for currency, text in printed.items():
        assert found[(day, currency)] == D(text)
        assert str(found[(day, currency)]) == text  # kept as printed, trailing zeros too


def test_the_2015_file_has_no_litas_after_lithuania_joined_the_euro() -> None:
    currencies = {r.currency for r in parse("eurofxref-daily_2015-01-07.xml").rates}
    assert "LTL" not in currencies
    assert {"HRK", "RUB", "BGN"} <= currencies


def test_the_recorded_90_day_file_2018_lands_61_days() -> None:
    batch = parse("eurofxref-hist-90d_2018-06-11.xml")
    days = sorted({r.rate_date for r in batch.rates})
    assert len(days) == 61
    assert (days[0], days[-1]) == (date(2018, 3, 14), date(2018, 6, 11))
    assert len(batch.rates) == 61 * 32
    found = rates(batch)
    # The historical files drop trailing zeros: 1.179 where the daily file prints 1.1790.
    assert str(found[(date(2018, 6, 11), "USD")]) == "1.179"
    assert found[(date(2018, 6, 8), "USD")] == D("1.1754")
    assert found[(date(2018, 6, 7), "USD")] == D("1.1836")
    assert found[(date(2018, 5, 30), "GBP")] == D("0.875")


def test_the_90_day_file_and_the_daily_file_of_the_same_day_agree_on_every_rate() -> None:
    """Recorded by the same upstream commit: the newest day of the 90-day file is the daily file's day."""
    daily = rates(parse("eurofxref-daily_2018-06-11.xml"))
    history = rates(parse("eurofxref-hist-90d_2018-06-11.xml"))
    assert daily
    for key, value in daily.items():
        assert history[key] == value  # Decimal equality: 1.179 == 1.1790


def test_the_recorded_90_day_file_2019_lands_65_days() -> None:
    batch = parse("eurofxref-hist-90d_2019-11-29.xml")
    days = sorted({r.rate_date for r in batch.rates})
    assert len(days) == 65
    assert (days[0], days[-1]) == (date(2019, 9, 2), date(2019, 11, 29))
    assert len(batch.rates) == 65 * 32
    found = rates(batch)
    assert found[(date(2019, 11, 29), "USD")] == D("1.0982")
    assert found[(date(2019, 11, 29), "JPY")] == D("120.43")
    assert found[(date(2019, 11, 29), "GBP")] == D("0.85225")


def test_daily_and_historical_recordings_read_the_same_element_paths() -> None:
    """The 90-day file nests its Cubes like the daily file: one shape, so the drift rule stays quiet."""
    shapes = {parse(p.name).shape for p in FX.glob("*.xml")}
    assert len(shapes) == 1
