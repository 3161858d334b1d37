"""Drift rules: row-count drop, price moves and shape changes, each quarantining or warning as configured."""

from __future__ import annotations

from decimal import Decimal

from pipelines.refresh.drift import Baseline, DriftFindings, evaluate
from pipelines.sources.file import DriftRules, load_sources

KEY = ("trn1.32xlarge", "on_demand", None)
BASE = Baseline(
    prices={
        KEY: Decimal("21.50"),
        ("trn1.2xlarge", "on_demand", None): Decimal("1.34"),
        ("trn1n.32xlarge", "on_demand", None): Decimal("24.78"),
    },
    shape="aaaa",
)
RULES = DriftRules()


def test_nothing_to_compare_finds_nothing():
    assert evaluate("s", RULES, None, {KEY: Decimal("99")}, "bbbb").quarantine == []


def test_a_hundredfold_price_is_quarantined_with_the_figures():
    found = evaluate("aws_trn1", RULES, BASE, {**BASE.prices, KEY: Decimal("2150.00")}, "aaaa")
    assert found.warnings == []
    assert found.quarantine == [
        "[aws_trn1] drift: 1 price(s) moved more than max_price_change_share=1.0: trn1.32xlarge on_demand "
        "(region not stated) 21.5 -> 2150 (9900%) (action quarantine)"
    ]


def test_a_price_read_100x_too_low_is_caught_too():
    found = evaluate("s", RULES, BASE, {**BASE.prices, KEY: Decimal("0.215")}, "aaaa")
    assert len(found.quarantine) == 1 and "21.5 -> 0.215 (9900%)" in found.quarantine[0]


def test_halving_and_doubling_are_the_limit():
    assert evaluate("s", RULES, BASE, {**BASE.prices, KEY: Decimal("43.00")}, "aaaa").quarantine == []
    assert evaluate("s", RULES, BASE, {**BASE.prices, KEY: Decimal("10.75")}, "aaaa").quarantine == []
    assert len(evaluate("s", RULES, BASE, {**BASE.prices, KEY: Decimal("43.01")}, "aaaa").quarantine) == 1


def test_a_small_move_passes():
    assert evaluate("s", RULES, BASE, {**BASE.prices, KEY: Decimal("19.99")}, "aaaa").quarantine == []


def test_row_drop_beyond_the_share_is_caught():
    found = evaluate("s", RULES, BASE, {KEY: Decimal("21.50")}, "aaaa")
    assert found.quarantine == [
        "[s] drift: row count dropped from 3 to 1 (67%), more than max_row_drop_share=0.5 allows (action quarantine)"
    ]


def test_shape_change_warns_by_default_and_can_quarantine():
    assert evaluate("s", RULES, BASE, BASE.prices, "bbbb").warnings == [
        "[s] drift: table shape changed (fingerprint of the headers or keys read aaaa -> bbbb) (action warn)"
    ]
    strict = DriftRules(on_shape_change="quarantine")
    assert len(evaluate("s", strict, BASE, BASE.prices, "bbbb").quarantine) == 1


def test_rules_set_to_warn_never_quarantine():
    lenient = DriftRules(on_price_change="warn", on_row_drop="warn")
    found = evaluate("s", lenient, BASE, {KEY: Decimal("0.01")}, "aaaa")
    assert found.quarantine == [] and len(found.warnings) == 2


def test_sources_file_defaults_and_per_source_overrides():
    rules = {s.id: s.drift for s in load_sources()}
    assert rules["aws_trn1"] == DriftRules()
    assert rules["gpu_vastai"].on_price_change == "warn"
    assert rules["gpu_vastai"].max_row_drop_share == Decimal("0.5")


def test_spec_only_pages_are_protected_from_row_drops():
    # Trn2/Trn3 pages print specs and no price: the rule counts their spec rows.
    specs_only = Baseline(prices={}, shape="aaaa", rows=4)
    found = evaluate("aws_trn3", RULES, specs_only, {}, "aaaa", rows=1)
    assert found.quarantine == [
        "[aws_trn3] drift: row count dropped from 4 to 1 (75%), more than "
        "max_row_drop_share=0.5 allows (action quarantine)"
    ]


def test_the_shape_rule_applies_to_sources_without_prices():
    # FX: rates are facts by date, so the baseline has no prices or rows, only the last shape.
    rates_only = Baseline(prices={}, shape="aaaa")
    assert evaluate("fx_ecb", RULES, rates_only, {}, "bbbb", rows=0).warnings == [
        "[fx_ecb] drift: table shape changed (fingerprint of the headers or keys read aaaa -> bbbb) (action warn)"
    ]
    strict = DriftRules(on_shape_change="quarantine")
    assert len(evaluate("fx_ecb", strict, rates_only, {}, "bbbb", rows=0).quarantine) == 1
    assert evaluate("fx_ecb", strict, rates_only, {}, "aaaa", rows=0) == DriftFindings()


def test_no_shape_known_before_finds_nothing():
    # Fetches landed before a source had a shape fingerprint leave nothing to compare with.
    assert evaluate("s", RULES, Baseline(prices={}, shape=None), {}, "bbbb") == DriftFindings()


# Regression: two moved prices sharing (name, kind) and their ratio, one region None, made `moves.sort()`
# compare None with "us-east-1" and raise TypeError, which quarantined the source even with the rule at warn.
SAME_MOVE_BASE = Baseline(
    prices={
        ("p5.48xlarge", "on_demand", None): Decimal("10"),
        ("p5.48xlarge", "on_demand", "us-east-1"): Decimal("10"),
    },
    shape="aaaa",
)
SAME_MOVE_NEW = {key: Decimal("30") for key in SAME_MOVE_BASE.prices}


def test_equal_moves_with_and_without_a_region_warn_without_crashing():
    found = evaluate("aws_p5", DriftRules(on_price_change="warn"), SAME_MOVE_BASE, SAME_MOVE_NEW, "aaaa")
    assert found.quarantine == []
    assert found.warnings == [
        "[aws_p5] drift: 2 price(s) moved more than max_price_change_share=1.0: "
        "p5.48xlarge on_demand (region not stated) 10 -> 30 (200%); p5.48xlarge on_demand (us-east-1) 10 -> 30 "
        "(200%) (action warn)"
    ]


def test_equal_moves_with_and_without_a_region_quarantine_naming_both():
    found = evaluate("aws_p5", DriftRules(on_price_change="quarantine"), SAME_MOVE_BASE, SAME_MOVE_NEW, "aaaa")
    assert found.warnings == [] and len(found.quarantine) == 1
    assert "p5.48xlarge on_demand (region not stated) 10 -> 30" in found.quarantine[0]
    assert "p5.48xlarge on_demand (us-east-1) 10 -> 30" in found.quarantine[0]


def test_moves_are_listed_largest_first():
    base = Baseline(
        prices={("a", "on_demand", "r"): Decimal("10"), ("b", "on_demand", None): Decimal("10")}, shape=None
    )
    found = evaluate(
        "s", RULES, base, {("a", "on_demand", "r"): Decimal("25"), ("b", "on_demand", None): Decimal("40")}, None
    )
    assert found.quarantine[0].index("b on_demand") < found.quarantine[0].index("a on_demand")
