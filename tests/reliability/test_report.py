"""The reliability report counts only what scenarios measured: unit tests on fabricated scenarios."""

from __future__ import annotations

import pytest

from tests.reliability.promises import (
    FAULT,
    LAST_GOOD_LOST,
    OTHERS_DISTURBED,
    PARSER_CRASHES,
    ROWS_WRONGLY_LANDED,
    Promise,
    Scenario,
    promise_line,
    report_lines,
)


def made(name: str, declared: tuple[Promise, ...] | None, **counts: int) -> Scenario:
    """A scenario that declared `declared` and measured `counts` (promise key -> count)."""
    item = Scenario(name=name, expected="quarantined", declared=declared, observed=f"{name} observed")
    by_key = {p.key: p for p in (ROWS_WRONGLY_LANDED, LAST_GOOD_LOST, OTHERS_DISTURBED, PARSER_CRASHES)}
    for key, count in counts.items():
        item.measure(by_key[key], count)
    return item


def test_measured_zero_is_counted_and_unmeasured_is_not() -> None:
    counted = made("counted", (ROWS_WRONGLY_LANDED,), rows=0)
    silent = made("silent", ())
    assert counted.value(ROWS_WRONGLY_LANDED) == 0 and silent.value(ROWS_WRONGLY_LANDED) is None
    assert (
        promise_line(ROWS_WRONGLY_LANDED, [counted, silent])
        == "  rows wrongly landed: 0 in 1 scenario that counts them"
    )
    assert promise_line(LAST_GOOD_LOST, [counted, silent]) == "  last-good versions lost: not measured by any scenario"


def test_totals_add_measured_counts_only() -> None:
    scenarios = [
        made("a", FAULT, rows=2, lost=0, others=0),
        made("b", FAULT, rows=0, lost=1, others=0),
        made("c", (PARSER_CRASHES,), crashes=0),
    ]
    assert promise_line(ROWS_WRONGLY_LANDED, scenarios) == "  rows wrongly landed: 2 in 2 scenarios that count them"
    assert promise_line(LAST_GOOD_LOST, scenarios) == "  last-good versions lost: 1 in 2 scenarios that count them"
    assert (
        promise_line(PARSER_CRASHES, scenarios)
        == "  parser exceptions other than ParseError: 0 in 1 scenario that counts them"
    )


def test_several_checks_of_one_promise_add_up() -> None:
    item = made("twice", (ROWS_WRONGLY_LANDED,), rows=1)
    item.measure(ROWS_WRONGLY_LANDED, 2)
    assert item.value(ROWS_WRONGLY_LANDED) == 3


@pytest.mark.parametrize("count", [None, -1, True, 0.0])
def test_a_count_must_be_a_non_negative_int(count: object) -> None:
    with pytest.raises(ValueError, match="rows wrongly landed"):
        Scenario(name="x", expected="").measure(ROWS_WRONGLY_LANDED, count)  # type: ignore[arg-type]


def test_bookkeeping_errors_name_unmeasured_undeclared_and_missing_declarations() -> None:
    assert made("ok", FAULT, rows=0, lost=0, others=0).bookkeeping_errors() == []
    assert made("unmeasured", FAULT, rows=0, lost=0).bookkeeping_errors() == [
        "declared but never measured: other sources disturbed"
    ]
    assert made("undeclared", (), crashes=0).bookkeeping_errors() == [
        "measured but not declared: parser exceptions other than ParseError"
    ]
    assert made("bare", None).bookkeeping_errors() == ["no @pytest.mark.promises(...) declaration"]


def test_report_lines_per_scenario_then_per_promise_then_tally() -> None:
    results = [
        (made("good", FAULT, rows=0, lost=0, others=0), True),
        (made("failed_early", FAULT, rows=1), False),  # stopped before measuring: not a bookkeeping error
        (made("forgot", FAULT, rows=0, lost=0), True),  # its test passed, but one promise was never measured
        (made("pass_fail_only", ()), True),
    ]
    lines = report_lines(results)
    scenario_lines = [line for line in lines if " | " in line][1:]
    assert [line.rsplit(" | ", 1)[1] for line in scenario_lines] == ["pass", "FAIL", "FAIL", "pass"]
    assert "| rows=0 lost=0 others=0 |" in scenario_lines[0] and "| - |" in scenario_lines[3]
    assert "  rows wrongly landed: 1 in 3 scenarios that count them" in lines
    assert "  last-good versions lost: 0 in 2 scenarios that count them" in lines
    assert "  other sources disturbed: 0 in 1 scenario that counts them" in lines
    assert "  pass/fail only, no counted promise: 1 scenario" in lines
    assert lines[-3:] == [
        "Promise bookkeeping errors in 1 scenario:",
        "  forgot: declared but never measured: other sources disturbed",
        "Scenarios tried: 4, passed: 2",
    ]


def test_no_scenarios_no_report() -> None:
    assert report_lines([]) == []
