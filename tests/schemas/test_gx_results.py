"""A GE run's results are kept for the same suite on the same frame, and only for exactly those."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from decimal import Decimal

import pytest

from schemas import gx_memo, gx_results
from schemas.gx_frames import frame
from schemas.gx_runner import ValidationReport, import_gx, run_suite

ROWS = [
    {"listing": "l1", "price": Decimal("1.34"), "kind": "on_demand"},
    {"listing": "l2", "price": Decimal("-2"), "kind": "spot"},  # a negative price: refused
]


@pytest.fixture
def ge_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each real GE run's suite name, in order (gx_memo.memoised wraps every run and nothing else); the memo
    starts empty and on."""
    runs: list[str] = []
    memoised = gx_memo.memoised

    @contextlib.contextmanager
    def counted() -> Iterator[None]:
        runs.append("run")
        with memoised():
            yield

    monkeypatch.setattr(gx_memo, "memoised", counted)
    monkeypatch.setattr(gx_results._Memo, "on", True)
    gx_results.forget()
    yield runs
    gx_results.forget()


def validate(rows: list[dict], *, high: int = 2_000_000, column: str = "price") -> ValidationReport:
    """A fresh suite and frame each call, as every refresh builds them."""
    _, gxe = import_gx()
    suite = [
        gxe.ExpectColumnValuesToNotBeNull(column="listing"),
        gxe.ExpectColumnValuesToBeBetween(column=column, min_value=0, max_value=high),
    ]
    return run_suite("kept", suite, frame(rows, ["listing", "price", "kind"], money=["price"]), rows)


def test_the_same_suite_on_the_same_frame_reuses_the_first_runs_results(ge_runs):
    first = validate(ROWS)
    again = validate([dict(row) for row in ROWS])
    assert len(ge_runs) == 1
    assert again == first
    assert [o.success for o in again.outcomes] == [True, False]
    assert again.outcomes[1].partial_unexpected == ["-2"]  # quoted from this call's own rows


def test_any_difference_in_a_value_or_a_bound_runs_ge_again(ge_runs):
    validate(ROWS)
    written_otherwise = [ROWS[0], {**ROWS[1], "price": Decimal("-2.0")}]  # equal, but not the same text
    assert validate(written_otherwise).outcomes[1].partial_unexpected == ["-2.0"]
    assert validate(ROWS, high=3_000_000).success is False
    assert len(ge_runs) == 3


def test_bypassed_runs_ge_every_time_and_kept_reuses_even_inside_it(ge_runs):
    with gx_results.bypassed():
        validate(ROWS)
        validate(ROWS)
        assert len(ge_runs) == 2
        with gx_results.kept():
            validate(ROWS)
            validate(ROWS)
    assert len(ge_runs) == 3


def test_a_run_in_which_an_expectation_raised_is_not_kept(ge_runs):
    first = validate(ROWS, column="no_such_column")  # GE raises inside the expectation: reported, not kept
    assert not first.success and any("raised" in (o.detail or "") for o in first.outcomes)
    validate(ROWS, column="no_such_column")
    assert len(ge_runs) == 2


def test_a_frame_over_the_row_limit_is_not_kept(ge_runs, monkeypatch):
    monkeypatch.setattr(gx_results, "MAX_ROWS", 1)
    validate(ROWS)
    validate(ROWS)
    assert len(ge_runs) == 2
