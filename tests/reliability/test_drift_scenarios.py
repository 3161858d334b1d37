"""Drift faults: a page that parses and validates, but moved too far from the version before it.

Each rule (row count drop, price move, table shape) is tried at its quarantine setting and at its warn
setting; rules are set on the matrix's own copy of the source, as a sources file would set them.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.sources.file import SourceSpec
from tests.reliability.harness import Matrix, run_fault, sample_text
from tests.reliability.promises import FAULT, LAST_GOOD_LOST, REFUSED_FAULT
from tests.support.localserver import Reply


@pytest.fixture
def matrix(matrix_on_each_backend):
    """Landing scenarios: each runs on both warehouse backends."""
    return matrix_on_each_backend


TRN1 = "aws_trn1"
ROWS = {  # the sample's three Trn1 rows, as printed
    "trn1.32xlarge": (
        "<tr><td>trn1.32xlarge</td><td>16</td><td>512</td><td>128</td><td>512</td><td>8</td><td>800</td>"
        "<td>Yes</td><td>80</td><td>$21.50</td><td>$12.60</td><td>$7.59</td></tr>\n"
    ),
    "trn1n.32xlarge": (
        "<tr><td>trn1n.32xlarge</td><td>16</td><td>512</td><td>128</td><td>512</td><td>8</td>"
        "<td>1600</td><td>Yes</td><td>80</td><td>$24.78</td><td>$14.52</td><td>$8.59</td></tr>\n"
    ),
}
EBS_HEADER = ("<th>EBS Bandwidth (Gbps)</th>", "<th>EBS throughput (Gbps)</th>")


def set_drift(m: Matrix, source_id: str, **rules) -> None:
    """Override some of the source's drift rules, the way its `drift = { ... }` in the sources file would."""
    index = next(i for i, s in enumerate(m.sources) if s.id == source_id)
    source = m.sources[index]
    m.sources[index] = SourceSpec.model_validate(
        {**source.model_dump(), "drift": {**source.drift.model_dump(), **rules}}
    )
    assert m.source(source_id).drift.model_dump() == {**source.drift.model_dump(), **rules}


def serve_edited(m: Matrix, source_id: str, *edits: tuple[str, str]) -> None:
    text = sample_text(m.source(source_id))
    for old, new in edits:
        assert old in text, f"the sample no longer contains {old!r}"
        text = text.replace(old, new)
    m.serve(source_id, Reply(body=text.encode()))


def drop_two_rows(m: Matrix) -> None:
    serve_edited(m, TRN1, *((row, "") for row in ROWS.values()))


def trn1_prices(m: Matrix, *, open_only: bool = True) -> dict[tuple[str, str], Decimal]:
    where = "AND valid_to IS NULL" if open_only else "AND valid_to IS NOT NULL"
    return {
        (t, k): p
        for t, k, p in m.query(
            f"""SELECT instance_type, price_kind, usd_per_instance_hour
        FROM aws_instance_price_history WHERE source_id = ? {where}""",
            [TRN1],
        )
    }


def logged(m: Matrix, fetch_id: int) -> tuple[str, list[str], str | None]:
    return m.query("SELECT outcome, warnings, shape_fingerprint FROM fetch_log WHERE fetch_id = ?", [fetch_id])[0]


def first_fetch(m: Matrix, source_id: str) -> tuple:
    return m.query(
        """SELECT outcome, warnings, shape_fingerprint FROM fetch_log WHERE source_id = ?
                      ORDER BY fetch_id LIMIT 1""",
        [source_id],
    )[0]


# -- row count ---------------------------------------------------------------------------------------------


@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_row_count_drop_is_quarantined(matrix, scenario):
    # The rule counts the rows the source keeps open: 3 specs + 3 x 3 prices = 12 before, 1 + 3 = 4 after.
    run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        fault=drop_two_rows,
        expect_status="quarantined",
        expect_in_error=("row count dropped from 12 to 4 (67%)", "max_row_drop_share=0.5", "action quarantine"),
    )
    assert len(trn1_prices(matrix)) == 9


@pytest.mark.expect("landed")
@pytest.mark.promises(*FAULT)
def test_row_count_drop_set_to_warn_lands_with_warning(matrix, scenario):
    set_drift(matrix, TRN1, on_row_drop="warn")
    outcomes = run_fault(
        matrix, scenario, source_id=TRN1, fault=drop_two_rows, expect_status="landed", lands=0
    )  # it only closes the two rows gone from the page
    new = outcomes[TRN1]
    warning = next(w for w in new.warnings if "row count dropped from 12 to 4" in w)
    assert "[aws_trn1]" in warning and "max_row_drop_share=0.5" in warning and "action warn" in warning
    outcome, warnings, _ = logged(matrix, new.fetch_id)
    assert outcome == "landed" and warning in warnings
    assert set(trn1_prices(matrix)) == {("trn1.2xlarge", k) for k in ("on_demand", "reserved_1y", "reserved_3y")}
    assert trn1_prices(matrix)[("trn1.2xlarge", "on_demand")] == Decimal("1.34")
    # the two rows gone from the page are closed, not deleted: 2 specs + 6 prices, history kept
    assert (new.inserted, new.closed) == (0, 8)
    assert trn1_prices(matrix, open_only=False)[("trn1n.32xlarge", "on_demand")] == Decimal("24.78")


# -- price moves -------------------------------------------------------------------------------------------

TIGHT = {"max_price_change_share": Decimal("0.25")}
PRICE_MOVE = ("<td>$21.50</td>", "<td>$30.00</td>")  # trn1.32xlarge on-demand +40%: fine at 1.0, not at 0.25


@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_price_move_beyond_share_is_quarantined(matrix, scenario):
    set_drift(matrix, TRN1, **TIGHT)
    run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        fault=lambda m: serve_edited(m, TRN1, PRICE_MOVE),
        expect_status="quarantined",
        expect_in_error=(
            "1 price(s) moved more than max_price_change_share=0.25",
            "trn1.32xlarge on_demand (region not stated) 21.5 -> 30 (40%)",
        ),
    )
    assert trn1_prices(matrix)[("trn1.32xlarge", "on_demand")] == Decimal("21.50")


@pytest.mark.expect("landed")
@pytest.mark.promises(*FAULT)
def test_price_move_set_to_warn_lands_with_warning(matrix, scenario):
    set_drift(matrix, TRN1, **TIGHT, on_price_change="warn")
    outcomes = run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        fault=lambda m: serve_edited(m, TRN1, PRICE_MOVE),
        expect_status="landed",
        lands=1,
    )
    new = outcomes[TRN1]
    warning = next(w for w in new.warnings if "max_price_change_share=0.25" in w)
    assert "21.5 -> 30 (40%)" in warning and "action warn" in warning
    assert warning in logged(matrix, new.fetch_id)[1]
    assert trn1_prices(matrix)[("trn1.32xlarge", "on_demand")] == Decimal("30.00")
    assert trn1_prices(matrix, open_only=False) == {("trn1.32xlarge", "on_demand"): Decimal("21.50")}
    assert (new.inserted, new.closed) == (1, 1)


# -- table shape -------------------------------------------------------------------------------------------


@pytest.mark.expect("unchanged")
@pytest.mark.promises(*FAULT)
def test_shape_change_warns_by_default(matrix, scenario):
    # Only a header nobody reads changed: the figures are the same, so nothing new lands ("unchanged"), but
    # the fetch is accepted, logged with its new shape, and warned about.
    assert matrix.source(TRN1).drift.on_shape_change == "warn"
    outcomes = run_fault(
        matrix, scenario, source_id=TRN1, fault=lambda m: serve_edited(m, TRN1, EBS_HEADER), expect_status="unchanged"
    )
    new = outcomes[TRN1]
    assert scenario.value(LAST_GOOD_LOST) == 0 and len(trn1_prices(matrix)) == 9
    warning = next(w for w in new.warnings if "table shape changed" in w)
    outcome, warnings, shape = logged(matrix, new.fetch_id)
    _, first_warnings, first_shape = first_fetch(matrix, TRN1)
    assert outcome == "unchanged" and warning in warnings and not first_warnings
    assert shape and first_shape and shape != first_shape
    assert f"{first_shape} -> {shape}" in warning and "action warn" in warning


@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_shape_change_set_to_quarantine(matrix, scenario):
    set_drift(matrix, TRN1, on_shape_change="quarantine")
    run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        fault=lambda m: serve_edited(m, TRN1, EBS_HEADER),
        expect_status="quarantined",
        expect_in_error=("table shape changed", "action quarantine"),
    )
    # the quarantined fetch's shape is not the baseline: the next good page compares with the landed one
    assert matrix.query(
        """SELECT count(DISTINCT shape_fingerprint) FROM fetch_log
                           WHERE source_id = ? AND outcome IN ('landed', 'unchanged')""",
        [TRN1],
    ) == [(1,)]
