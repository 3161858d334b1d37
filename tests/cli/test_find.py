"""`ratecard find` on the demo warehouse: the checks a user relies on (the cheapest H100 first, Trainium2's Capacity
Block in Ohio), every filter, and every format carrying the view's prices exactly."""

from __future__ import annotations

import csv
import io
import json
import math
from decimal import Decimal

import duckdb
import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.cli.reporting import EXIT_USAGE
from warehouse.publish import snapshot_path

runner = CliRunner()
MONEY = ("usd_per_accelerator_hour", "usd_per_instance_hour", "usd_per_offering_month_730h")
KEY = ("provider", "offering", "price_kind", "terms", "region", "source_id")


def find(db, *args):
    result = runner.invoke(app, ["find", *args, "--db", str(db)])
    assert result.exit_code == 0, result.output
    return result


def found_json(db, *args):
    return json.loads(find(db, *args, "--format", "json").stdout)


def view_prices(db, where):
    """(key, USD per accelerator-hour, per offering-hour) of the view's rows, as DECIMALs."""
    with duckdb.connect(str(snapshot_path(db)), read_only=True) as con:
        rows = con.execute(
            f"SELECT {', '.join(KEY)}, usd_per_accelerator_hour, usd_per_instance_hour FROM accelerator_offers "
            f"WHERE {where}"
        ).fetchall()
    return sorted((tuple(r[:6]), r[6], r[7]) for r in rows)


def as_found(rows):
    return sorted(
        (tuple(r[k] or None for k in KEY), Decimal(r["usd_per_accelerator_hour"]), Decimal(r["usd_per_instance_hour"]))
        for r in rows
    )


def test_the_cheapest_h100_is_hyperstack_at_2_50_per_gpu_hour(demo_warehouse):
    offers = found_json(demo_warehouse, "--gpu", "H100")
    assert offers[0]["provider"] == "Hyperstack" and Decimal(offers[0]["usd_per_accelerator_hour"]) == Decimal("2.50")
    assert all(isinstance(o[m], str) for o in offers for m in MONEY)  # money as exact strings, unit in the name
    prices = [Decimal(o["usd_per_accelerator_hour"]) for o in offers]
    assert prices == sorted(prices) and {o["price_kind"] for o in offers} == {"on_demand"}
    assert "AWS" in {o["provider"] for o in offers}  # both halves: the p5 prices too


def test_every_kind_of_h100_lists_aws_the_other_hyperscalers_and_the_gpu_clouds_together(demo_warehouse):
    offers = found_json(demo_warehouse, "--gpu", "H100", "--kind", "all")
    providers = {o["provider"] for o in offers}
    assert {"AWS", "Azure", "Google Cloud", "Oracle Cloud", "Hyperstack", "Lambda", "RunPod"} <= providers
    kinds = {(o["provider"], o["offering"], o["price_kind"]): o for o in offers}
    # Google's DWS Calendar price is a reservation kind of its own, a3-megagpu-8g at 44.00 for 8 GPUs: 5.50 each.
    calendar = kinds["Google Cloud", "a3-megagpu-8g", "dws_calendar"]
    assert Decimal(calendar["usd_per_accelerator_hour"]) == Decimal("5.5") and calendar["region"] is None
    assert Decimal(kinds["Google Cloud", "a3-megagpu-8g", "on_demand"]["usd_per_instance_hour"]) == Decimal(
        "93.400712807"
    )
    # Azure's prices are per region; a 3-year reservation is the term's price over its hours, per GPU.
    reserved = kinds["Azure", "Standard_ND96isr_H100_v5", "reserved_3y"]
    assert (reserved["region"], reserved["terms"]) == ("eastus", "billed per 3 years per instance, 3-year term")
    assert Decimal(reserved["usd_per_accelerator_hour"]) == Decimal("1226487.6") / 26280 / 8
    # The reserved family takes every term commitment: Azure's reservations and Google's resource commitments.
    reserved_kinds = {o["price_kind"] for o in found_json(demo_warehouse, "--gpu", "H100", "--kind", "reserved")}
    assert {"reserved_1y", "reserved_3y", "committed_use_1y", "committed_use_3y"} <= reserved_kinds
    oracle = kinds["Oracle Cloud", "Oracle Cloud Infrastructure - Compute - GPU - H100", "on_demand"]
    assert Decimal(oracle["usd_per_accelerator_hour"]) == 10 and oracle["region"] is None


@pytest.mark.parametrize("name", ["TPU v6e", "Google TPU v6e", "tpu v6e"])
def test_a_tpu_is_found_by_its_names_per_chip_hour_by_region_each_kind_apart(demo_warehouse, name):
    offers = found_json(demo_warehouse, "--accelerator", name, "--kind", "all")
    assert {(o["provider"], o["accelerator_model"]) for o in offers} == {("Google Cloud", "TPU v6e")}
    kinds = {(o["price_kind"], o["region"]): Decimal(o["usd_per_accelerator_hour"]) for o in offers}
    assert kinds == {
        ("on_demand", "us-south1"): Decimal("2.7"),
        ("on_demand", "us-east5"): Decimal("2.7"),
        ("on_demand", "europe-west4"): Decimal("2.97"),
        ("committed_use_1y", "us-east5"): Decimal("1.89"),
        ("committed_use_3y", "us-east5"): Decimal("1.22"),
        ("dws_flex_start", "us-east5"): Decimal("1.35"),  # a reservation kind of its own, never on demand
    }
    reserved = found_json(demo_warehouse, "--accelerator", name, "--kind", "reserved")
    assert {(o["price_kind"], o["terms"]) for o in reserved} == {
        ("committed_use_1y", "billed per hour per chip, 1-year term"),
        ("committed_use_3y", "billed per hour per chip, 3-year term"),
    }


def test_trainium2_by_its_family_name_shows_the_ohio_capacity_block_and_no_on_demand(demo_warehouse):
    offers = found_json(demo_warehouse, "--accelerator", "trn2", "--kind", "all")
    assert [(o["offering"], o["price_kind"], o["region"], o["region_code"]) for o in offers] == [
        ("trn2.48xlarge", "capacity_block", "US East (Ohio)", "us-east-2")
    ]
    wide = find(demo_warehouse, "--accelerator", "trn2", "--kind", "all", "--wide").stdout
    assert "US East (Ohio) (us-east-2)" in wide and "on_demand" not in wide


@pytest.mark.parametrize("name", ["H100", "h100", "NVIDIA H100", "nvidia  h100"])
def test_a_model_is_found_by_any_of_its_names(demo_warehouse, name):
    offers = found_json(demo_warehouse, "--gpu", name)
    assert len(offers) > 3 and {o["accelerator_model"] for o in offers} == {"H100"}


def test_a_name_with_a_form_factor_keeps_that_form_factor(demo_warehouse):
    offers = found_json(demo_warehouse, "--gpu", "h100 sxm")
    assert offers and {o["accelerator_variant"] for o in offers} == {"SXM"}
    assert "p5.48xlarge" in {o["offering"] for o in offers}  # AWS's H100 is the SXM form


def test_count_total_memory_and_stock_filter(demo_warehouse):
    eight = found_json(demo_warehouse, "--gpu", "H100", "--count", "8")
    assert eight and all(Decimal(o["accelerators_per_offering"]) >= 8 for o in eight)
    totals = found_json(demo_warehouse, "--gpu", "H100", "--total", "12")
    for offer in totals:
        per = Decimal(offer["accelerators_per_offering"])
        assert offer["offerings_needed"] == math.ceil(12 / per)  # rounded up
        assert Decimal(offer["total_usd_per_hour"]) == offer["offerings_needed"] * Decimal(
            offer["usd_per_instance_hour"]
        )
    assert [Decimal(o["total_usd_per_hour"]) for o in totals] == sorted(
        Decimal(o["total_usd_per_hour"]) for o in totals
    )
    big = found_json(demo_warehouse, "--kind", "all", "--memory-gib", "100")
    assert big and all(Decimal(o["accelerator_memory_gib"]) >= 100 for o in big)
    every = found_json(demo_warehouse, "--kind", "all")
    stocked = found_json(demo_warehouse, "--kind", "all", "--in-stock")
    assert {o["stock_status"] for o in stocked} == {"in_stock"}
    assert None in {o["stock_status"] for o in every} and len(stocked) < len(every)


def test_region_by_code_or_name_kind_provider_and_price(demo_warehouse):
    by_code = found_json(demo_warehouse, "--region", "us-east-2", "--kind", "savings plans")
    by_name = found_json(demo_warehouse, "--region", "us east (ohio)", "--kind", "savings-plans")
    assert by_code and by_code == by_name and {o["region_code"] for o in by_code} == {"us-east-2"}
    assert all("savings_plan" in o["price_kind"] for o in by_code)
    lambda_ = found_json(demo_warehouse, "--provider", "lambda", "--kind", "all")
    assert lambda_ and {o["provider"] for o in lambda_} == {"Lambda"}
    cheap = found_json(demo_warehouse, "--per", "month", "--max-price", "1000")
    months = [Decimal(o["usd_per_offering_month_730h"]) for o in cheap]
    assert cheap and max(months) <= 1000 and months == sorted(months)
    assert all(Decimal(o["usd_per_instance_hour"]) * 730 == Decimal(o["usd_per_offering_month_730h"]) for o in cheap)


def test_ties_are_ordered_by_provider_offering_and_region(demo_warehouse):
    offers = found_json(demo_warehouse, "--kind", "all")
    keys = [
        (Decimal(o["usd_per_accelerator_hour"]), o["provider"], o["offering"], o["region"] or "\uffff") for o in offers
    ]
    assert keys == sorted(keys)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--gpu", "H1000"], "unknown accelerator 'H1000'; nearest: H100"),
        (["--region", "us-east-9"], "nearest: us-east-"),
    ],
)
def test_an_unknown_name_is_one_line_naming_the_nearest(demo_warehouse, args, named):
    result = runner.invoke(app, ["find", *args, "--db", str(demo_warehouse)])
    assert result.exit_code == EXIT_USAGE
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and named in errors[0], result.stderr


def test_every_format_carries_the_views_prices_exactly(demo_warehouse, tmp_path):
    expected = view_prices(demo_warehouse, "accelerator_model = 'H100'")
    assert expected
    as_json = found_json(demo_warehouse, "--gpu", "H100", "--kind", "all")
    as_csv = list(
        csv.DictReader(io.StringIO(find(demo_warehouse, "--gpu", "H100", "--kind", "all", "--format", "csv").stdout))
    )
    parquet = tmp_path / "offers.parquet"
    find(demo_warehouse, "--gpu", "H100", "--kind", "all", "--format", "parquet", "--output", str(parquet))
    with duckdb.connect() as con:
        types = dict(con.execute(f"SELECT name, type FROM parquet_schema('{parquet}')").fetchall())
        from_parquet = con.execute(f"SELECT * FROM '{parquet}'").fetchall()
        names = [d[0] for d in con.execute(f"SELECT * FROM '{parquet}' LIMIT 0").description]
    assert types["usd_per_accelerator_hour"] == "FIXED_LEN_BYTE_ARRAY"  # a DECIMAL, not a DOUBLE
    as_parquet = [dict(zip(names, row, strict=True)) for row in from_parquet]
    assert all(isinstance(r["usd_per_instance_hour"], Decimal) for r in as_parquet)
    for rows in (as_json, as_csv, as_parquet):
        assert as_found(rows) == expected


def test_the_table_fits_100_columns_and_wide_shows_names_in_full(demo_warehouse):
    narrow = find(demo_warehouse, "--gpu", "H100", "--kind", "all").stdout
    assert max(len(line) for line in narrow.splitlines()) <= 100
    assert "Hyperstack" in narrow and "not stated" in narrow and "USD/accel-h" in narrow and "2.5000" in narrow
    long_name = "serverless pool 80 GB (H100 PRO): H100 PRO"
    assert long_name not in narrow
    wide = find(demo_warehouse, "--gpu", "H100", "--kind", "all", "--wide").stdout
    assert long_name in wide and "2.5" in wide


def test_parquet_needs_a_file_and_the_table_writes_none(demo_warehouse, tmp_path):
    result = runner.invoke(app, ["find", "--format", "parquet", "--db", str(demo_warehouse)])
    assert result.exit_code == EXIT_USAGE and "--output" in result.stderr
    result = runner.invoke(app, ["find", "--output", str(tmp_path / "x.json"), "--db", str(demo_warehouse)])
    assert result.exit_code == EXIT_USAGE and not (tmp_path / "x.json").exists()
