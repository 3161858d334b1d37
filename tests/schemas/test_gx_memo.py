"""Great Expectations reads each expectation's configuration once per run, and reports exactly as without that."""

from __future__ import annotations

import contextlib
from decimal import Decimal

from schemas import gx_memo, gx_results
from schemas.gx_frames import frame
from schemas.gx_runner import import_gx, validate_frame


def _suite(gxe):
    return [
        gxe.ExpectTableRowCountToBeBetween(min_value=1),
        gxe.ExpectColumnValuesToNotBeNull(column="listing"),
        gxe.ExpectColumnValuesToBeBetween(column="price", min_value=0, max_value=2_000_000),
        gxe.ExpectColumnValuesToBeInSet(column="kind", value_set=["on_demand", "spot"]),
        gxe.ExpectColumnValuesToMatchRegex(column="listing", regex=r"^l\d$"),
        gxe.ExpectColumnValuesToBeUnique(column="listing"),
    ]


def _results(gxe, result_format: str) -> list[dict]:
    rows = [
        {"listing": "l1", "price": Decimal("1.5"), "kind": "on_demand"},
        {"listing": "l1", "price": Decimal("3.25"), "kind": "reserved"},  # repeated key, price and kind refused
        {"listing": None, "price": None, "kind": "spot"},
    ]
    data = frame(rows, ["listing", "price", "kind"], money=["price"])
    results = validate_frame("memo", _suite(gxe), data, result_format)
    out = []
    for result in results:
        as_json = result.to_json_dict()
        as_json["expectation_config"].pop("id", None)  # a fresh suite gives fresh ids
        out.append(as_json)
    return out


def test_a_run_reports_the_same_with_and_without_the_memo(monkeypatch):
    _, gxe = import_gx()
    monkeypatch.setattr(gx_results._Memo, "on", False)  # both runs run GE: neither reuses the other's results
    for result_format in ("SUMMARY", "COMPLETE"):
        memoised = _results(gxe, result_format)
        with monkeypatch.context() as plain_run:
            plain_run.setattr(gx_memo, "memoised", contextlib.nullcontext)
            plain = _results(gxe, result_format)
        assert memoised == plain
        outcomes = {r["expectation_config"]["type"]: r["success"] for r in plain}
        passed = {name for name, success in outcomes.items() if success}  # a regex skips the missing listing
        assert passed == {"expect_table_row_count_to_be_between", "expect_column_values_to_match_regex"}
        assert len(outcomes) == 6


def test_the_configuration_is_shared_only_inside_a_run():
    _, gxe = import_gx()
    expectation = gxe.ExpectColumnValuesToNotBeNull(column="listing")
    assert expectation.configuration is not expectation.configuration
    with gx_memo.memoised():
        first = expectation.configuration
        assert expectation.configuration is first
        assert first.kwargs == {"column": "listing"}
    assert expectation.configuration is not first


def test_a_metric_id_inside_a_run_is_the_one_ge_computes_and_keyed_by_exact_content():
    import_gx()
    from great_expectations.core.id_dict import IDDict

    dicts = [
        IDDict({"column": "price", "min_value": 1, "strict": True}),
        IDDict({"column": "price", "min_value": True, "strict": True}),  # True == 1, but another id
        IDDict({"column": "price", "value_set": [Decimal("1.0"), "a"]}),
        IDDict({"column": "price", "value_set": [Decimal("1.00"), "a"]}),  # equal Decimal, other text
        IDDict({"column": "price", "result_format": {"result_format": "SUMMARY"}}),
        IDDict({"column": "price", "seen": {"a"}}),  # a set: not keyed, hashed as GE does
    ]
    plain = [d.to_id() for d in dicts]
    with gx_memo.memoised():
        first = [d.to_id() for d in dicts]
        again = [IDDict(dict(d)).to_id() for d in dicts]  # equal dicts, new objects: served from the memo
        keyed = len(gx_memo._State.ids)
    assert first == again == plain
    assert plain[0] != plain[1]  # a key that took True for 1 would have served the first id for the second
    assert keyed == len(dicts) - 1  # the two Decimals keyed apart (GE happens to give them one id)
