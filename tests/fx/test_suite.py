"""The ECB rates' gate compares rates exactly: Decimal objects, however small, and a bad rate named."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pandas as pd
import pytest

from pipelines.fx import suite as fx_suite
from pipelines.fx.records import FxBatch, FxRate
from pipelines.fx.suite import FX_SUITE, validate_fx
from tests.support.ge_frames import BETWEEN, NOT_NULL, failures, spy_on_frames

DAY = date(2026, 12, 1)


@pytest.fixture
def frames_to_ge(monkeypatch: pytest.MonkeyPatch) -> dict[str, pd.DataFrame]:
    return spy_on_frames(monkeypatch, fx_suite)


def rates(*units_per_eur: object) -> FxBatch:
    rows = [
        FxRate.model_construct(currency=c, rate_date=DAY, units_per_eur=u)
        for c, u in zip(["USD", "JPY", "GBP"], units_per_eur, strict=False)
    ]
    return FxBatch(source_id="fx_ecb", parser_version="test", rates=rows)


def test_ge_gets_fx_rates_as_decimal_and_tiny_rates_pass(frames_to_ge: dict[str, pd.DataFrame]) -> None:
    assert all(r.success for r in validate_fx(rates(Decimal("1.1840"), Decimal("0.000000000000000001"))))
    assert list(frames_to_ge[FX_SUITE]["units_per_eur"]) == [Decimal("1.1840"), Decimal("1E-18")]


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (Decimal("0"), {(BETWEEN, "units_per_eur"): ["0"]}),
        ("abc", {(NOT_NULL, "units_per_eur"): ["abc"]}),
        (None, {(NOT_NULL, "units_per_eur"): [None]}),
    ],
)
def test_bad_fx_rate_is_reported(bad: object, expected: dict) -> None:
    assert failures(validate_fx(rates(Decimal("1.1840"), bad))) == expected
