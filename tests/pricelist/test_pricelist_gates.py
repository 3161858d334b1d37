"""The price-list gates: the Great Expectations suite, the typed refusals (duplicate on-demand rows, a publication
date going back), and the kind the refresh path uses, with drift compared per region."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from functools import partial

import pytest

from pipelines.kinds import kind_named
from pipelines.pricelist.checks import (
    DuplicateOnDemand,
    PublicationDateWentBack,
    check_one_on_demand,
    check_publication_date,
)
from pipelines.pricelist.kind import pricelist_kind_label
from pipelines.pricelist.landing import publication_landed
from pipelines.pricelist.records import PriceListBatch, PriceListPrice
from pipelines.pricelist.suite import (
    PRICELIST_COLUMNS,
    PRICELIST_MONEY,
    PRICELIST_NUMBERS,
    pricelist_rows,
    validate_pricelist,
    validate_pricelist_many,
)
from pipelines.refresh.checking import Prepared, finish_check
from pipelines.refresh.state import WarehouseState
from pipelines.sources.adapter_registry import ADAPTERS, AdapterInfo
from pipelines.sources.file import SourceSpec
from schemas.gx_frames import frame
from tests.support.pricelist_factory import PUBLISHED, SOURCE, batch, land, price, reserved, us_east_1
from warehouse.db import connect

KIND = kind_named("pricelist")


def failed(reports) -> set[tuple[str, str | None]]:
    return {(o.expectation, o.column) for r in reports for o in r.outcomes if not o.success}


def test_a_good_region_passes():
    (report,) = validate_pricelist(batch(us_east_1()))
    assert report.success and report.row_count == 5, report.failures()


def test_money_reaches_ge_as_exact_decimal_micro_units():
    rows = pricelist_rows(batch(us_east_1()))
    data = frame(rows, PRICELIST_COLUMNS, numbers=PRICELIST_NUMBERS, money=PRICELIST_MONEY)
    assert list(data["hourly_usd"][:2]) == [Decimal("21500000"), Decimal("1340000")]
    assert all(isinstance(v, Decimal) for v in data["effective_usd_per_instance_hour"])
    assert data["effective_usd_per_instance_hour"][4] == Decimal("6849315.068493150685")  # 180000 / 26280


def test_two_on_demand_rows_for_one_type_fail_the_suite_and_name_the_type():
    duplicated = batch([*us_east_1(), price("trn1.32xlarge", "23.10")])
    assert failed(validate_pricelist(duplicated)) >= {
        ("expect_column_values_to_be_unique", "on_demand_key"),
        ("expect_column_values_to_be_unique", "business_key"),
    }
    with pytest.raises(DuplicateOnDemand) as refused:
        check_one_on_demand(duplicated)
    assert refused.value.source_id == SOURCE and refused.value.region_code == "us-east-1"
    ((key, skus),) = refused.value.duplicates.items()
    assert key == ("us-east-1", "trn1.32xlarge") and len(skus) == 2
    assert "region us-east-1 refused" in str(refused.value) and "trn1.32xlarge in us-east-1 (2 rows" in str(
        refused.value
    )


def test_reserved_offers_of_one_type_are_not_duplicates():
    offers = [price(), reserved(years=1), reserved(years=3), reserved(offering=reserved().offering_class)]
    check_one_on_demand(batch(offers[:3]))  # one on-demand row: fine
    assert ("expect_column_values_to_be_unique", "business_key") in failed(validate_pricelist(batch(offers)))


def test_a_zero_price_and_a_stray_region_fail():
    free = PriceListPrice.model_construct(**{**dict(price()), "hourly_usd": Decimal(0)})
    stray = price("trn1.2xlarge", "1.40", "eu-west-1")
    unchecked = PriceListBatch.model_construct(**{**dict(batch([])), "prices": [free, stray]})
    assert failed(validate_pricelist(unchecked)) == {
        ("expect_column_values_to_be_between", "effective_usd_per_instance_hour"),
        ("expect_column_values_to_be_between", "usd_per_accelerator_hour"),
        ("expect_column_values_to_be_in_set", "in_file_region"),
    }


def test_many_regions_in_one_run_report_as_each_alone():
    good = batch(us_east_1())
    bad = batch([price(region="us-west-2"), price("trn1.32xlarge", "24.0", "us-west-2")], "us-west-2")
    # Another source with the very same keys in the same region: keys are unique per source, not across them.
    twin = batch(us_east_1(), source_id="aws_pricelist_mirror")
    stacked = validate_pricelist_many({"a": good, "b": bad, "c": twin})
    assert stacked["a"][0].success and stacked["c"][0].success
    assert stacked["b"] == validate_pricelist(bad)
    assert ("expect_column_values_to_be_unique", "on_demand_key") in failed(stacked["b"])


def test_a_publication_date_going_back_is_refused(tmp_path):
    db = tmp_path / "gate.duckdb"
    with connect(db) as con:
        land(con, batch(us_east_1()), 0)
    state = WarehouseState(db)
    assert state.read(partial(publication_landed, SOURCE, "us-east-1")) == PUBLISHED
    assert state.read(partial(publication_landed, SOURCE, "us-west-2")) is None
    KIND.gates(batch(us_east_1()), state)  # the same file again is fine
    KIND.gates(batch([], "us-west-2", published=PUBLISHED - timedelta(days=60)), state)  # another region
    older = batch(us_east_1(), published=PUBLISHED - timedelta(days=1))
    with pytest.raises(PublicationDateWentBack) as refused:
        KIND.gates(older, state)
    message = str(refused.value)
    assert "[aws_pricelist]" in message and "region us-east-1 refused" in message
    assert "2026-08-31T00:00:00+00:00 is older than the one already landed (2026-09-01T00:00:00+00:00)" in message
    check_publication_date(older, None)  # nothing landed yet: nothing to compare


def test_the_kind_prepares_counts_and_names_prices_with_their_terms():
    prepared = KIND.prepare(batch(us_east_1()), None, PUBLISHED.date(), None)
    assert prepared.counts == {
        "on_demand_rows": 3,
        "reserved_rows": 2,
        "spot_rows": 0,
        "compute_savings_plan_rows": 0,
        "ec2_instance_savings_plan_rows": 0,
        "sagemaker_hosting_rows": 0,
        "sagemaker_training_rows": 0,
        "price_rows": 5,
        "refused": 0,
    }
    assert pricelist_kind_label(us_east_1()[3]) == "reserved 1y Partial Upfront standard"
    assert KIND.row_count(batch(us_east_1())) == 5
    with pytest.raises(
        DuplicateOnDemand, match=r"more than one on-demand row for trn1\.32xlarge in us-east-1 \(2 rows"
    ):
        KIND.prepare(batch([price(), price()]), None, PUBLISHED.date(), None)


@pytest.fixture
def pricelist_source(monkeypatch) -> SourceSpec:
    """A source of the pricelist kind (the adapter itself comes with the parsers)."""
    monkeypatch.setitem(ADAPTERS, "aws_pricelist_region", AdapterInfo("pipelines.pricelist", "pricelist", ()))
    return SourceSpec(id=SOURCE, adapter="aws_pricelist_region", url="http://127.0.0.1/r.csv", sample="r.csv")


def check(source: SourceSpec, b, db) -> object:
    reports = KIND.validate_many({source.id: (source, b)})[source.id]
    return finish_check(source, Prepared(b, [], {}, None), reports, WarehouseState(db))


def test_drift_and_the_date_gate_apply_per_region_on_the_refresh_path(tmp_path, pricelist_source):
    db = tmp_path / "drift.duckdb"
    with connect(db) as con:
        land(con, batch(us_east_1()), 0)
        land(con, batch([price(region="us-west-2")], "us-west-2"), 1)
    state = WarehouseState(db)
    baseline = state.baseline(KIND, SOURCE, KIND.scope(batch([], "us-east-1")))
    assert baseline.prices == KIND.prices(batch(us_east_1())) and baseline.rows == 5
    # us-west-2 with its one row is no "row drop" against us-east-1's five: each region is its own version.
    assert check(pricelist_source, batch([price(region="us-west-2")], "us-west-2"), db).error is None
    tripled = batch([price("trn1.32xlarge", "64.50"), *us_east_1()[1:]])
    verdict = check(pricelist_source, tripled, db)
    assert verdict.error is not None and "trn1.32xlarge on_demand (us-east-1)" in str(verdict.error)
    stale = batch(us_east_1(), published=PUBLISHED - timedelta(days=1))
    verdict = check(pricelist_source, stale, db)
    assert verdict.stage == "validate" and "publication date" in str(verdict.error)
