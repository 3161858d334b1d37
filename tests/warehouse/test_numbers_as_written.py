"""Numbers land as written: a Decimal in exponent form (1e6, 2.5E+6, 4e4, what Decimal.normalize() gives) lands at
its value through every landing path (prices, pilots, plans, traffic) into a real DuckDB file, and
`ratecard pilot import` of a CSV whose units_per_hour is 1e6 stores 1,000,000. (DuckDB 1.5.5's Python binding
reads Decimal('1E+6') as 1 when it is bound as a parameter.)"""

from __future__ import annotations

import subprocess
import sys
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipelines.aws.landing import aws_snapshots
from pipelines.aws.records import InstancePrice, InstanceSpec, PriceKind, SourceBatch
from pipelines.pilots.landing import land_pilots, land_plan
from pipelines.pilots.records import PILOT_COLUMNS, MigrationPlan, Offering, PilotResult
from pipelines.pilots.traffic import TrafficProfile, land_traffic
from warehouse.binding import execute, fixed_point
from warehouse.db import connect
from warehouse.landing import FetchRecord, land_batch

# Its module fixture lands a warehouse: every test of the module in one xdist worker, so it is landed once.
pytestmark = pytest.mark.xdist_group("numbers_as_written")

TRN1 = Offering(offering_source="aws_instance", offering="trn1.2xlarge", region="us-east-1", price_kind="on_demand")
EXAMPLES = ("1E+6", "2.5E+6", "4e4", "2e9", "1.000E+2", "1.34")


def exponent_forms(max_exponent: int) -> st.SearchStrategy[Decimal]:
    """Whole values written with a positive exponent (12E+3), and values as Decimal.normalize() prints them."""
    scaled = st.builds(lambda n, e: Decimal(n).scaleb(e), st.integers(1, 10**6), st.integers(0, max_exponent))
    normalised = st.integers(1, 10**9).map(lambda n: (Decimal(n) * 1000).normalize())
    return st.one_of(scaled, normalised)


def land_price(con: duckdb.DuckDBPyConnection, usd: Decimal, at: datetime) -> None:
    spec = InstanceSpec(instance_type="trn1.2xlarge", accelerator="Trainium", accelerator_count=1)
    price = InstancePrice(
        instance_type="trn1.2xlarge",
        price_kind=PriceKind.ON_DEMAND,
        usd_per_instance_hour=usd,
        accelerator_count=1,
        region="us-east-1",
    )
    batch = SourceBatch(source_id="aws_trn1", parser_version="test/1", specs=[spec], prices=[price])
    land_batch(con, FetchRecord("aws_trn1", "https://example.test/trn1", at), "test/1", aws_snapshots(batch))


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new warehouse holding one trn1.2xlarge price, so pilots and plans of it are known offerings."""
    path = tmp_path_factory.mktemp("numbers") / "prices.duckdb"
    with connect(path) as con:
        land_price(con, Decimal("1.34"), datetime(2026, 9, 1, tzinfo=UTC))
    return path


def test_a_decimal_with_a_positive_exponent_is_bound_at_its_value():
    con = duckdb.connect()
    values = [Decimal(text) for text in EXAMPLES]
    assert con.execute("SELECT ?::DECIMAL(24,3)", [Decimal("1E+6")]).fetchone() != (Decimal(10**6),)  # the defect
    assert execute(con, "SELECT $v::DECIMAL(24,3)[]", {"v": values}).fetchone() == (values,)
    assert [execute(con, "SELECT ?::DECIMAL(24,3)", [v]).fetchone() for v in values] == [(v,) for v in values]
    assert str(fixed_point(Decimal("2.5E+6"))) == "2500000" and str(fixed_point(Decimal("1.5E-7"))) == "1.5E-7"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(usd=exponent_forms(4).filter(lambda v: v <= 10**9))
@example(usd=Decimal("4e4"))
@example(usd=Decimal("1E+2"))
def test_a_price_in_exponent_form_lands_at_its_value(warehouse, usd):
    with connect(warehouse) as con:
        land_price(con, usd, datetime.now(UTC))
        (landed,) = con.execute(
            "SELECT usd_per_instance_hour FROM aws_instance_price_history WHERE valid_to IS NULL"
        ).fetchone() or (None,)
        land_price(con, Decimal("1.34"), datetime.now(UTC))  # the known price again, for the pilots and plans
    assert landed == usd


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(units=exponent_forms(12).filter(lambda v: v < 10**20))
@example(units=Decimal("1E+6"))
@example(units=Decimal("2.5E+6"))
def test_a_pilots_units_per_hour_in_exponent_form_lands_at_its_value(warehouse, units):
    pilot = PilotResult(
        **TRN1.model_dump(), workload="w", work_unit="tokens", units_per_hour=units, quality_passed=True,
        measured_on=date(2026, 9, 1),
    )  # fmt: skip
    with connect(warehouse) as con:
        landed = land_pilots(con, "test", uuid.uuid4().hex, [pilot])
        stored = con.execute("SELECT units_per_hour FROM pilot_result_history WHERE input_id = ?", [landed.input_id])
        assert stored.fetchall() == [(units,)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cost=exponent_forms(9).filter(lambda v: v < 10**15), volume=exponent_forms(12).filter(lambda v: v < 10**20))
@example(cost=Decimal("4e4"), volume=Decimal("2e9"))
def test_a_plans_cost_and_volume_in_exponent_form_land_at_their_value(warehouse, cost, volume):
    plan = MigrationPlan(
        workload="w", baseline=TRN1, one_time_cost_usd=cost, monthly_maintenance_usd=cost, monthly_volume=volume,
        lifetime_months=12,
    )  # fmt: skip
    with connect(warehouse) as con:
        landed = land_plan(con, "test", uuid.uuid4().hex, plan)
        query = "SELECT one_time_cost_usd, monthly_maintenance_usd, monthly_volume FROM migration_plan_history"
        assert con.execute(query + " WHERE input_id = ?", [landed.input_id]).fetchall() == [(cost, cost, volume)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(monthly=exponent_forms(12).filter(lambda v: v < 10**20), peak=exponent_forms(9).filter(lambda v: v < 10**18))
@example(monthly=Decimal("2e9"), peak=Decimal("1E+6"))
def test_a_traffic_profile_in_exponent_form_lands_at_its_value(warehouse, monthly, peak):
    peak = max(peak, monthly)  # the peak must carry the month in 10 h a day over 30 days
    profile = TrafficProfile(workload="w", monthly_units=monthly, active_hours_per_day=Decimal("1E+1"),
                             peak_units_per_hour=peak, days_per_month=Decimal("3E+1"))  # fmt: skip
    with connect(warehouse) as con:
        landed = land_traffic(con, "test", uuid.uuid4().hex, [profile])
        query = "SELECT monthly_units, active_hours_per_day, peak_units_per_hour, days_per_month"
        stored = con.execute(query + " FROM traffic_profile_history WHERE input_id = ?", [landed.input_id]).fetchall()
    assert stored == [(monthly, Decimal(10), peak, Decimal(30))]


def test_pilot_import_of_1e6_units_per_hour_stores_one_million(warehouse, tmp_path):
    row = {"workload": "imported", "offering": "trn1.2xlarge", "region": "us-east-1", "price_kind": "on_demand"}
    row |= {"work_unit": "tokens", "units_per_hour": "1e6", "quality_passed": "yes", "measured_on": "2026-09-01"}
    csv = tmp_path / "pilots.csv"
    csv.write_text(",".join(PILOT_COLUMNS) + "\n" + ",".join(row.get(c, "") for c in PILOT_COLUMNS) + "\n")
    command = [sys.executable, "-m", "ratecard", "pilot", "import", str(csv), "--db", str(warehouse)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    with duckdb.connect(str(warehouse), read_only=True) as con:
        query = "SELECT units_per_hour, usd_per_million_units FROM cost_per_work WHERE workload = 'imported'"
        stored = con.execute(query).fetchall()
    assert stored == [(Decimal("1000000.000"), Decimal("1.34"))]
