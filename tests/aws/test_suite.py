"""The Great Expectations gate on its own: records pydantic would refuse are built with model_construct()."""

from __future__ import annotations

import json
from decimal import Decimal

import pandas as pd
import pytest

from bench.gate import sample_batches
from pipelines.aws import suite as aws_suite
from pipelines.aws.records import InstancePrice, InstanceSpec, PriceKind, SourceBatch
from pipelines.aws.suite import (
    PRICES_SUITE,
    SPECS_SUITE,
    ValidationReport,
    validate_batch,
    validate_batch_many,
)
from schemas import gx_stacked
from schemas.gx_frames import float_columns, shifted
from schemas.gx_runner import ExpectationOutcome, run_suite
from tests.support.ge_frames import spy_on_frames

BETWEEN = "expect_column_values_to_be_between"
UNIQUE = "expect_column_values_to_be_unique"
IN_SET = "expect_column_values_to_be_in_set"
ROW_COUNT = "expect_table_row_count_to_be_between"
NOT_NULL = "expect_column_values_to_not_be_null"
MONEY = [
    "usd_per_instance_hour",
    "printed_usd_per_accelerator_hour",
    "usd_per_accelerator_hour",
    "usd_per_accelerator_hour_4dp",
]


def spec(instance_type: str = "trn1.2xlarge", accelerator_count: int = 1, **overrides) -> InstanceSpec:
    fields = {
        "instance_type": instance_type,
        "accelerator": "Trainium",
        "accelerator_count": accelerator_count,
        "accelerator_memory_value": Decimal("32"),
        "accelerator_memory_unit": "GB",
        "vcpus": 8,
        "host_memory_gib": Decimal("32"),
    }
    return InstanceSpec(**fields | overrides)


def price(usd: str = "1.34375", instance_type: str = "trn1.2xlarge", accelerator_count: int = 1, **overrides):
    fields = {
        "instance_type": instance_type,
        "price_kind": PriceKind.ON_DEMAND,
        "usd_per_instance_hour": Decimal(usd),
        "accelerator_count": accelerator_count,
        "region": "us-east-1",
    }
    return InstancePrice(**fields | overrides)


def stored_fields(record) -> dict:
    return record.model_dump(exclude=set(type(record).model_computed_fields))


def unchecked_price(usd: str, **overrides) -> InstancePrice:
    """A price pydantic would refuse (zero, negative, ...), so only the GE gate can stop it."""
    fields = stored_fields(price()) | {"usd_per_instance_hour": Decimal(usd)} | overrides
    return InstancePrice.model_construct(**fields)


def batch(specs=None, prices=None) -> SourceBatch:
    specs = [spec(), spec("trn1.32xlarge", 16)] if specs is None else specs
    prices = [price()] if prices is None else prices
    return SourceBatch(source_id="aws_trn1", parser_version="test", specs=specs, prices=prices)


def good_batch() -> SourceBatch:
    return batch(
        prices=[
            price(),
            price(region="us-west-2"),  # same instance and kind, another region: a different business key
            price(region=None),
            price("1.0", price_kind=PriceKind.RESERVED_1Y),
            price("21.5", "trn1.32xlarge", 16),
        ]
    )


def report(reports: list[ValidationReport], suite: str) -> ValidationReport:
    (found,) = [r for r in reports if r.suite == suite]
    return found


def failed(reports: list[ValidationReport], suite: str, expectation: str, column: str | None):
    (found,) = [
        o
        for o in report(reports, suite).outcomes
        if not o.success and o.expectation == expectation and o.column == column
    ]
    return found


def failed_names(reports: list[ValidationReport]) -> set[tuple[str, str, str | None]]:
    return {(r.suite, o.expectation, o.column) for r in reports for o in r.outcomes if not o.success}


@pytest.fixture
def frames_to_ge(monkeypatch: pytest.MonkeyPatch) -> dict[str, pd.DataFrame]:
    return spy_on_frames(monkeypatch, aws_suite)


# --- what GE is handed ----------------------------------------------------------------------------------


def test_ge_gets_money_as_exact_decimal_micro_dollars_and_no_float(frames_to_ge: dict[str, pd.DataFrame]) -> None:
    assert all(r.success for r in validate_batch(good_batch()))
    prices, specs = frames_to_ge[PRICES_SUITE], frames_to_ge[SPECS_SUITE]
    assert list(prices["business_key"][:3]) == [
        "trn1.2xlarge|on_demand|us-east-1",
        "trn1.2xlarge|on_demand|us-west-2",
        "trn1.2xlarge|on_demand|<not stated>",
    ]
    for column in [*MONEY, "accelerator_count"]:
        assert prices[column].dtype == object
        assert all(isinstance(v, Decimal) for v in prices[column] if v is not None)
    assert list(prices["usd_per_instance_hour"]) == [Decimal("1343750")] * 3 + [Decimal("1000000"), Decimal("21500000")]
    assert prices["usd_per_accelerator_hour"].iloc[4] == Decimal("1343750")  # 21.5 / 16, in micro-dollars
    assert list(specs["vcpus"]) == [Decimal(8), Decimal(8)] and specs["vcpus"].dtype == object
    for frame in (prices, specs):
        assert float_columns(frame) == []


def test_empty_lists_give_frames_with_every_column_and_zero_rows(frames_to_ge: dict[str, pd.DataFrame]) -> None:
    validate_batch(batch(specs=[], prices=[]))
    prices, specs = frames_to_ge[PRICES_SUITE], frames_to_ge[SPECS_SUITE]
    assert len(prices) == 0 and {"business_key", *MONEY} <= set(prices)
    assert len(specs) == 0 and {"instance_type", "family", "accelerator_memory_gib", "vcpus"} <= set(specs)


def test_run_suite_refuses_a_float_column() -> None:
    with pytest.raises(TypeError, match="float columns handed to Great Expectations: usd"):
        run_suite("s", [], pd.DataFrame({"usd": [1.5], "name": ["a"]}), [])


def test_shifting_into_micro_units_never_rounds() -> None:
    long = Decimal("1234567890.123456789012345678901234567890")  # 40 digits: more than the context's 28
    assert shifted(long, 6) == Decimal("1234567890123456.789012345678901234567890")


# --- exact money bounds ---------------------------------------------------------------------------------


@pytest.mark.parametrize("usd", ["2000", "2000.000000", "1999.999999999999999999", "0.000000000000000032"])
def test_price_up_to_the_bound_passes_exactly(usd: str) -> None:
    # The smallest case is 1e-18 per accelerator-hour: still above the strict zero bound.
    reports = validate_batch(
        batch(specs=[spec("p9.big", 32)], prices=[unchecked_price(usd, instance_type="p9.big", accelerator_count=32)])
    )
    assert failed_names(reports) == set()


@pytest.mark.parametrize("usd", ["2000.000001", "2000.000000000000000001"])
def test_price_a_hair_over_the_bound_fails_and_is_quoted_exactly(usd: str, caplog: pytest.LogCaptureFixture) -> None:
    if len(usd) > 12:  # the trap: float64 rounds it onto the bound, so a float comparison would let it pass
        assert float(Decimal(usd)) == 2000.0
    reports = validate_batch(
        batch(specs=[spec("p9.big", 32)], prices=[unchecked_price(usd, instance_type="p9.big", accelerator_count=32)])
    )
    assert failed_names(reports) == {(PRICES_SUITE, BETWEEN, "usd_per_instance_hour")}
    assert failed(reports, PRICES_SUITE, BETWEEN, "usd_per_instance_hour").partial_unexpected == [usd]
    assert "lossy conversion" not in caplog.text  # GE's float copy of the value, in micro-dollars, stays quiet


def test_per_accelerator_bound_compares_all_18_decimals() -> None:
    # 200.000000000000000016 per accelerator-hour (18 decimals) is over the 200 bound; as a float it is 200.0.
    usd = "1600.000000000000000128"
    assert float(Decimal(usd) / 8) == 200.0
    reports = validate_batch(
        batch(specs=[spec("p9.big", 8)], prices=[unchecked_price(usd, instance_type="p9.big", accelerator_count=8)])
    )
    assert failed_names(reports) == {(PRICES_SUITE, BETWEEN, "usd_per_accelerator_hour")}
    assert failed(reports, PRICES_SUITE, BETWEEN, "usd_per_accelerator_hour").partial_unexpected == [
        "200.000000000000000016"
    ]


def test_bound_finer_than_a_micro_dollar_is_refused() -> None:
    with pytest.raises(ValueError, match="micro-units"):
        validate_batch(good_batch(), max_usd_per_instance_hour=Decimal("2000.0000001"))


@pytest.mark.parametrize("usd", ["abc", None])
def test_non_numeric_price_is_reported_by_the_not_null_check(usd: str | None) -> None:
    fields = stored_fields(price()) | {"usd_per_instance_hour": usd, "region": "eu-west-1"}
    reports = validate_batch(batch(prices=[price(), InstancePrice.model_construct(**fields)]))
    assert failed_names(reports) == {
        (PRICES_SUITE, NOT_NULL, "usd_per_instance_hour"),
        (PRICES_SUITE, NOT_NULL, "usd_per_accelerator_hour"),
    }
    assert failed(reports, PRICES_SUITE, NOT_NULL, "usd_per_instance_hour").partial_unexpected == [usd]


def test_record_whose_computed_field_cannot_be_computed_is_reported() -> None:
    reports = validate_batch(batch(prices=[unchecked_price("8", accelerator_count=0)]))
    assert failed(reports, PRICES_SUITE, NOT_NULL, "usd_per_accelerator_hour").partial_unexpected == [None]
    assert failed(reports, PRICES_SUITE, BETWEEN, "accelerator_count").partial_unexpected == [0]


# --- validation -----------------------------------------------------------------------------------------


def test_describe_quotes_exact_values():
    outcome = ExpectationOutcome(BETWEEN, "usd_per_instance_hour", False, 2, ["0", "-1.5"])
    assert outcome.describe() == (
        "expect_column_values_to_be_between(usd_per_instance_hour): 2 unexpected, e.g. ['0', '-1.5']"
    )


def test_good_batch_passes_both_suites():
    reports = validate_batch(good_batch())
    assert [r.suite for r in reports] == [SPECS_SUITE, PRICES_SUITE]
    specs, prices = reports
    assert specs.success and prices.success
    assert (specs.row_count, prices.row_count) == (2, 5)
    assert specs.evaluated == specs.successful == 9
    assert prices.evaluated == prices.successful == 12
    assert specs.failures() == [] and prices.failures() == []


@pytest.mark.parametrize("usd", ["0", "-1.5"])
def test_zero_or_negative_price_fails(usd):
    reports = validate_batch(batch(prices=[price(), unchecked_price(usd, region="eu-west-1")]))
    assert not report(reports, PRICES_SUITE).success
    assert report(reports, SPECS_SUITE).success
    outcome = failed(reports, PRICES_SUITE, BETWEEN, "usd_per_instance_hour")
    assert (outcome.unexpected_count, outcome.partial_unexpected) == (1, [usd])
    # The derived per-accelerator rate is zero or negative too.
    assert failed(reports, PRICES_SUITE, BETWEEN, "usd_per_accelerator_hour").unexpected_count == 1
    assert f"aws_instance_prices: {outcome.describe()}" in report(reports, PRICES_SUITE).failures()
    json.dumps([o.partial_unexpected for r in reports for o in r.outcomes])


def test_implausible_instance_price_fails():
    # 5000 over 32 accelerators is 156.25 per accelerator-hour: only the instance bound is broken.
    reports = validate_batch(batch(specs=[spec("p9.big", 32)], prices=[price("5000", "p9.big", 32)]))
    assert failed_names(reports) == {(PRICES_SUITE, BETWEEN, "usd_per_instance_hour")}
    assert failed(reports, PRICES_SUITE, BETWEEN, "usd_per_instance_hour").partial_unexpected == ["5000"]


def test_price_bounds_are_parameters():
    reports = validate_batch(
        batch(specs=[spec("p9.big", 16)], prices=[price("5000", "p9.big", 16)]),
        max_usd_per_instance_hour=Decimal("10000"),
        max_usd_per_accelerator_hour=Decimal("400"),  # 5000 / 16 = 312.5
    )
    assert [f for r in reports for f in r.failures()] == [] and all(r.success for r in reports)


def test_duplicate_business_key_fails():
    reports = validate_batch(batch(prices=[price(), price("1.5")]))
    assert failed_names(reports) == {(PRICES_SUITE, UNIQUE, "business_key")}
    outcome = failed(reports, PRICES_SUITE, UNIQUE, "business_key")
    assert outcome.unexpected_count == 2
    assert outcome.partial_unexpected == ["trn1.2xlarge|on_demand|us-east-1"] * 2


def test_duplicates_without_a_region_are_still_duplicates():
    reports = validate_batch(batch(prices=[price(region=None), price("1.5", region=None)]))
    outcome = failed(reports, PRICES_SUITE, UNIQUE, "business_key")
    assert outcome.unexpected_count == 2
    assert outcome.partial_unexpected == ["trn1.2xlarge|on_demand|<not stated>"] * 2


def test_empty_prices_fail_when_prices_are_expected():
    reports = validate_batch(batch(prices=[]))
    assert failed_names(reports) == {(PRICES_SUITE, ROW_COUNT, None)}
    prices = report(reports, PRICES_SUITE)
    assert prices.row_count == 0
    assert prices.failures() == [
        "aws_instance_prices: expect_table_row_count_to_be_between: observed 0, expected {'min_value': 1}"
    ]


def test_empty_prices_pass_when_none_are_expected():
    reports = validate_batch(batch(prices=[]), expects_prices=False)
    assert all(r.success for r in reports)
    assert report(reports, PRICES_SUITE).row_count == 0


def test_price_without_a_spec_fails():
    reports = validate_batch(batch(prices=[price(), price("21.5", "trn2.48xlarge", 16)]))
    assert failed_names(reports) == {(PRICES_SUITE, IN_SET, "instance_type")}
    outcome = failed(reports, PRICES_SUITE, IN_SET, "instance_type")
    assert (outcome.unexpected_count, outcome.partial_unexpected) == (1, ["trn2.48xlarge"])


def test_bad_specs_fail_the_specs_suite():
    duplicate = InstanceSpec.model_construct(**stored_fields(spec()) | {"vcpus": 0})
    reports = validate_batch(batch(specs=[spec(), duplicate]))
    assert failed_names(reports) == {
        (SPECS_SUITE, UNIQUE, "instance_type"),
        (SPECS_SUITE, BETWEEN, "vcpus"),
    }
    assert failed(reports, SPECS_SUITE, UNIQUE, "instance_type").unexpected_count == 2
    assert failed(reports, SPECS_SUITE, BETWEEN, "vcpus").partial_unexpected == [0]


# --- many sources in one run ----------------------------------------------------------------------------


def alone_and_stacked(batches: dict[str, tuple[SourceBatch, bool]]) -> tuple[dict, dict]:
    wants = {source_id: expects for source_id, (_, expects) in batches.items()}
    stacked = validate_batch_many({sid: b for sid, (b, _) in batches.items()}, expects_prices=wants)
    alone = {sid: validate_batch(b, expects_prices=expects) for sid, (b, expects) in batches.items()}
    return stacked, alone


def test_stacked_reports_equal_alone_on_the_aws_samples() -> None:
    samples = {s.source.id: (s.batch, s.source.expects_prices) for s in sample_batches() if s.kind.name == "aws"}
    stacked, alone = alone_and_stacked(samples)
    assert stacked == alone
    assert len(stacked) == len(samples) >= 5  # five AWS pages (aws_trn3 is a spec page now)
    assert all(r.success and r.row_count > 0 for found in stacked.values() for r in found[:1])


def broken_batches() -> dict[str, tuple[SourceBatch, bool]]:
    duplicate_spec = InstanceSpec.model_construct(**stored_fields(spec()) | {"vcpus": 0})
    non_numeric = InstancePrice.model_construct(**stored_fields(price()) | {"usd_per_instance_hour": "abc"})
    return {
        "good": (good_batch(), True),
        "same_keys_as_good": (good_batch(), True),  # another source: its keys are no duplicates of "good"'s
        "duplicate": (batch(prices=[price(), price("1.5")]), True),
        # trn1.32xlarge has a spec in the other sources, not in this one
        "no_spec_here": (batch(specs=[spec()], prices=[price(), price("21.5", "trn1.32xlarge", 16)]), True),
        "zero": (batch(prices=[price(), unchecked_price("0", region="eu-west-1")]), True),
        "empty_expected": (batch(prices=[]), True),
        "empty_allowed": (batch(prices=[]), False),
        "no_specs": (batch(specs=[], prices=[price()]), True),
        "many_bad": (batch(prices=[unchecked_price("-1", region=f"r-{i}") for i in range(25)]), True),
        "not_numeric": (batch(prices=[price(region="eu-west-1"), non_numeric]), True),
        "uncomputable": (batch(prices=[unchecked_price("8", accelerator_count=0)]), True),
        "bad_specs": (batch(specs=[spec(), duplicate_spec]), True),
    }


def test_stacked_reports_equal_alone_on_broken_batches() -> None:
    stacked, alone = alone_and_stacked(broken_batches())
    assert stacked == alone
    assert all(r.success for r in stacked["same_keys_as_good"])
    assert failed_names(stacked["no_spec_here"]) == {(PRICES_SUITE, IN_SET, "instance_type")}
    assert failed(stacked["no_spec_here"], PRICES_SUITE, IN_SET, "instance_type").partial_unexpected == [
        "trn1.32xlarge"
    ]
    many = failed(stacked["many_bad"], PRICES_SUITE, BETWEEN, "usd_per_instance_hour")
    assert (many.unexpected_count, len(many.partial_unexpected)) == (25, 20)
    assert failed_names(stacked["empty_expected"]) == {(PRICES_SUITE, ROW_COUNT, None)}
    assert all(r.success for r in stacked["empty_allowed"])


def test_stacked_run_falls_back_to_each_source_alone_when_ge_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    batches = {sid: broken_batches()[sid] for sid in ("good", "duplicate", "empty_allowed")}
    expected = alone_and_stacked(batches)[1]
    calls: list[str] = []

    def counted(one: SourceBatch, **kwargs: object) -> list[ValidationReport]:
        calls.append(one.source_id)
        return validate_batch(one, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gx_stacked, "raised", lambda result: True)  # as if an expectation had raised
    monkeypatch.setattr(aws_suite, "validate_batch", counted)
    stacked = validate_batch_many({sid: b for sid, (b, _) in batches.items()}, expects_prices={"empty_allowed": False})
    assert stacked == expected
    assert len(calls) == 2 * len(batches)  # once per suite per source


def test_many_sources_of_nothing_give_no_reports() -> None:
    assert validate_batch_many({}) == {}
