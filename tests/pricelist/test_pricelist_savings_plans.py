"""Savings Plans rates (source aws_savings_plans): the region index, the rate files, their landing and their views.

Parsing runs on the bundled samples and on real recorded files (tests/recorded/aws/); the landing goes over real
HTTP on 127.0.0.1 into a real DuckDB file, the EC2 regions first, as a refresh does.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines import pricelist
from pipelines.errors import ParseError
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.fetch.offline import pointed_at, serve_directory
from pipelines.pricelist.records import PriceListKind, PurchaseOption
from pipelines.pricelist.region_index import parse_region_index
from pipelines.pricelist.savings_plan_csv import parse_savings_plan_csv
from pipelines.refresh.many_sources import refresh_all
from pipelines.sources.file import load_sources
from pipelines.sources.locations import SAMPLES_DIR
from tests.support.paths import RECORDED
from warehouse.db import connect
from warehouse.sql_files import sql

# Its module fixture lands a warehouse: every test of the module in one xdist worker, so it is landed once.
pytestmark = pytest.mark.xdist_group("pricelist_savings_plans")

RATES = SAMPLES_DIR / "aws" / "savingsplan"
RECORDINGS = RECORDED / "aws"
STAMP = "20260928170000"
TRN1_ON_DEMAND = Decimal("21.50")


def rates(region: str = "us-east-1", body: bytes | None = None, **options: object):
    source = body if body is not None else RATES / f"{region}.csv"
    return parse_savings_plan_csv(source, "aws_savings_plans_x", region_code=region, **options)


def test_every_plan_term_and_payment_option_is_kept_for_linux_shared_tenancy_only():
    batch = rates(index_version=STAMP)
    trn1 = {
        (q.price_kind, q.lease_years, q.purchase_option): q.hourly_usd
        for q in batch.pending
        if q.instance_type == "trn1.32xlarge"
    }
    assert len(trn1) == 12  # 2 plans x 2 terms x 3 payment options; the Windows, RHEL, Dedicated rows dropped
    assert trn1[(PriceListKind.COMPUTE_SAVINGS_PLAN, 1, PurchaseOption.NO_UPFRONT)] == TRN1_ON_DEMAND * Decimal("0.80")
    assert trn1[(PriceListKind.EC2_INSTANCE_SAVINGS_PLAN, 3, PurchaseOption.ALL_UPFRONT)] == Decimal("9.03")
    types = {q.instance_type for q in batch.pending}
    assert "r7g.xlarge" not in types and all(re.match(r"^(trn|inf|p|g)", t) for t in types)
    assert len(batch.pending) == 12 * len(types) and batch.prices == []  # priced later, with the types landed
    assert (batch.offer_version, batch.region_code) == (STAMP, "us-east-1")


def test_a_real_recorded_rate_file_reads_by_header_meaning():
    """The head of AWS's ap-east-2 rate file (jtdelia/ec2-priceit, see recorded/SOURCES.md): unquoted, r7g only."""
    body = (RECORDINGS / "savings_plan_ap_east_2_head.csv").read_bytes()
    assert rates("ap-east-2", body).pending == []  # r7g is no accelerator family
    kept = rates("ap-east-2", body, families=["r7g"]).pending
    linux_box = [line for line in body.decode().splitlines() if "BoxUsage:" in line and ",RunInstances," in line]
    assert len(kept) == len(linux_box) == 2  # the head holds two Linux shared-tenancy rows among 44
    assert {q.price_kind for q in kept} == {PriceListKind.EC2_INSTANCE_SAVINGS_PLAN}
    assert {(q.lease_years, q.purchase_option) for q in kept} == {(3, PurchaseOption.PARTIAL_UPFRONT)}
    two_xl = next(q for q in kept if q.instance_type == "r7g.2xlarge")
    assert (two_xl.hourly_usd, two_xl.sku) == (Decimal("0.1954"), "2JT7C3ZD2AXA73Q4")


def test_the_real_savings_plans_region_index_is_an_array_of_regions():
    body = (RECORDINGS / "savings_plan_region_index.json").read_bytes()
    index = parse_region_index(body, "aws_savings_plans", "https://pricing.us-east-1.amazonaws.com/x")
    codes = {offer.region_code for offer in index.regions}
    assert len(codes) == 103 and {"us-east-1", "ap-east-2", "us-west-2-den-1"} <= codes
    east = next(offer for offer in index.regions if offer.region_code == "us-east-1")
    assert east.version == "20250911184447" and east.csv_url == (
        "https://pricing.us-east-1.amazonaws.com/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20250911184447/"
        "us-east-1/index.csv"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace(",17.2,", ",17.3,", 1) + t.splitlines()[6].replace(",17.2,", ",17.2,") + "\n", ""),
        (lambda t: t.replace("OfferCode,AmazonComputeSavingsPlan", "OfferCode,AmazonEC2"), "expected AmazonCompute"),
        (lambda t: t.replace(",1,year,", ",2,year,", 1), "is not 1 or 3 years"),
        (lambda t: t.replace(",us-east-1,trn1.2xlarge", ",us-east-2,trn1.2xlarge", 1), "also name us-east-2"),
        (lambda t: t.rstrip("\n"), "truncated download"),
    ],
)
def test_a_bad_rate_file_is_refused_naming_the_source_and_the_fault(change, message):
    text = (RATES / "us-east-1.csv").read_text(encoding="utf-8")
    changed = change(text)
    if not message:  # a type and plan priced twice, at two rates
        first = next(line for line in text.splitlines() if ",trn1.32xlarge" in line and ",RunInstances," in line)
        changed = text + first.replace(first.split(",")[4], "99.9", 1) + "\n"
        message = "is listed twice at different prices"
    with pytest.raises(ParseError, match=message) as refused:
        rates(body=changed.encode())
    assert "[aws_savings_plans_x]" in str(refused.value)


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The EC2 price list and the Savings Plans refreshed together into a new warehouse, over HTTP."""
    db = tmp_path_factory.mktemp("savings") / "prices.duckdb"
    wanted = [s for s in load_sources() if s.id in ("aws_savings_plans", "aws_pricelist")]
    with serve_directory() as base, Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        outcomes = refresh_all(
            pointed_at(wanted, base), db_path=db, archive=Archive(db.parent / "archive"), fetcher=fetcher, max_sources=2
        )
    assert {o.source_id: o.status for o in outcomes if o.source_id.startswith("aws_savings")} == {
        "aws_savings_plans_us_east_1": "landed",
        "aws_savings_plans_us_east_2": "landed",
    }, [str(o.error) for o in outcomes]
    return db


def test_trn1_savings_plans_reach_the_price_views_as_their_own_kinds(landed):
    with duckdb.connect(str(landed), read_only=True) as con:
        shown = con.execute(
            """SELECT price_kind, purchase_option, usd_per_instance_hour, usd_per_accelerator_hour_4dp, upfront_usd
               FROM aws_instance_prices
               WHERE instance_type = 'trn1.32xlarge' AND region_code = 'us-east-1' AND price_kind LIKE '%savings%'
               ORDER BY price_kind, purchase_option"""
        ).fetchall()
        hour_kinds = {
            row[0]
            for row in con.execute(
                """SELECT price_kind FROM accelerator_hour_prices
                   WHERE offering = 'trn1.32xlarge' AND price_terms IS NOT NULL"""
            ).fetchall()
        }
        (offered,) = con.execute(  # what pilots and deployment_costs price an offering with
            """SELECT count(*) FROM offering_prices
               WHERE offering = 'trn1.32xlarge' AND region = 'US East (N. Virginia)'
                 AND price_kind LIKE '%savings_plan%'"""
        ).fetchone()
        value_rows = con.execute(
            """SELECT count(*) FROM accelerator_value
               WHERE offering = 'trn1.32xlarge' AND region = 'us-east-1' AND price_kind LIKE '%savings%'"""
        ).fetchone()
    assert len(shown) == 12
    assert {row[0] for row in shown} == {
        "compute_savings_plan_1y",
        "compute_savings_plan_3y",
        "ec2_instance_savings_plan_1y",
        "ec2_instance_savings_plan_3y",
    }
    all_upfront_3y = next(r for r in shown if r[0] == "ec2_instance_savings_plan_3y" and r[1] == "All Upfront")
    # The plan's rate is the effective hourly rate (no per-instance fee); 16 Trainium chips share it.
    assert all_upfront_3y[2:] == (Decimal("9.03"), Decimal("0.5644"), None)
    assert {"compute_savings_plan_3y", "ec2_instance_savings_plan_1y", "reserved_3y"} <= hour_kinds
    assert value_rows == (12,)
    assert offered == 12


def test_a_savings_plan_rate_never_stands_in_for_another_kind(landed):
    with duckdb.connect(str(landed), read_only=True) as con:
        (on_demand,) = con.execute(
            """SELECT count(*) FROM aws_instance_prices WHERE price_kind = 'on_demand'
               AND source_id LIKE 'aws_savings_plans%'"""
        ).fetchone()
        basis = con.execute(
            """SELECT DISTINCT accelerator_count, accelerator_count_basis FROM aws_pricelist_price_history
               WHERE instance_type = 'trn1.32xlarge' AND source_id LIKE 'aws_savings_plans%'"""
        ).fetchall()
    assert on_demand == 0
    assert basis == [(16, "catalog")]  # the figures of the type the EC2 price list landed (Neuron: curated)


KINDS_CHECK = (
    "'spot',\n                                          'compute_savings_plan', 'ec2_instance_savings_plan',\n"
    "                                          'sagemaker_hosting', 'sagemaker_training')"
)


@pytest.mark.parametrize(
    "older_kinds",
    [
        "'spot')",  # before the Savings Plans kinds
        "'spot',\n                                          'compute_savings_plan', 'ec2_instance_savings_plan')",
    ],
    ids=["before-savings-plans", "before-sagemaker"],
)
def test_a_file_whose_check_predates_newer_price_kinds_is_rebuilt_to_admit_them(tmp_path, older_kinds):
    path = tmp_path / "old.duckdb"
    older, replaced = re.subn(re.escape(KINDS_CHECK), older_kinds, sql(pricelist.SCHEMA.file("tables")))
    assert replaced == 1  # the test follows the schema file: a reworded CHECK must be mirrored here
    with connect(path) as con:
        con.execute("DROP TABLE aws_pricelist_price_history")
        con.execute(older)
        con.execute("DELETE FROM schema_version")
    with connect(path) as con:
        (check,) = con.execute(
            """SELECT expression FROM duckdb_constraints() WHERE table_name = 'aws_pricelist_price_history'
               AND constraint_type = 'CHECK' AND expression LIKE '%price_kind%'"""
        ).fetchone()
        (comment,) = con.execute(
            "SELECT comment FROM duckdb_tables() WHERE table_name = 'aws_pricelist_price_history'"
        ).fetchone()
    assert "'ec2_instance_savings_plan'" in check and "'sagemaker_training'" in check and "Savings Plans" in comment
