"""What `make demo` promises, through `ratecard refresh --offline` (real HTTP on 127.0.0.1) and `ratecard show`:
trn1.32xlarge in us-east-1 agrees with its product page, no decoy row reaches any view, the Capacity-Block-only type
has no on-demand row, show prints the per-region summary, and every figure the README quotes from the demo is what
the demo's warehouse holds (the README marks each such table `<!-- checked against the demo: ... -->`)."""

from __future__ import annotations

import itertools
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from tests.support.landed import copy_file_warehouse
from tests.support.paths import PILOT_SAMPLES, ROOT
from tests.support.pricelist_files import Row, read_sample

# Its module fixture lands a warehouse: every test of the module in one xdist worker, so it is landed once.
pytestmark = pytest.mark.xdist_group("pricelist_demo")

runner = CliRunner()
README = ROOT / "README.md"
PILOTS = PILOT_SAMPLES
REGIONS = ("us-east-1", "us-east-2", "eu-south-2")
# The filters of pipelines/pricelist/offer_csv.py, restated by header name: a row failing any is a decoy.
KEPT = {
    "Product Family": "Compute Instance",
    "Tenancy": "Shared",
    "Operating System": "Linux",
    "Pre Installed S/W": "NA",
    "CapacityStatus": "Used",
    "MarketOption": "OnDemand",
    "License Model": "No License required",
    "Currency": "USD",
}


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("demo") / "prices.duckdb"
    refreshed = runner.invoke(app, ["refresh", "--offline", "--db", str(db)], terminal_width=200)
    assert refreshed.exit_code == 0, refreshed.output
    shown = runner.invoke(app, ["show", "--db", str(db)], terminal_width=250)
    assert shown.exit_code == 0, shown.output
    return db, shown.output


def query(db: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def is_decoy(row: Row) -> bool:
    return any(row[name] != value for name, value in KEPT.items()) or row["operation"].endswith(":CB")


def prices_in_sample(decoys: bool) -> set[tuple[str, str, Decimal]]:
    """(region, type, hourly price) of the samples' on-demand and reserved hourly rows, decoys or kept ones."""
    found = set()
    for region in REGIONS:
        for row in read_sample(region)[2]:
            if row["Unit"] == "Hrs" and row["TermType"] in ("OnDemand", "Reserved") and is_decoy(row) == decoys:
                found.add((region, row["Instance Type"], Decimal(row["PricePerUnit"])))
    return found


def test_trn1_32xlarge_on_demand_in_us_east_1_equals_the_product_page_and_agrees(demo):
    db, _ = demo
    ((page,),) = query(
        db,
        """SELECT usd_per_instance_hour FROM aws_instance_prices WHERE source_id = 'aws_trn1'
           AND instance_type = 'trn1.32xlarge' AND price_kind = 'on_demand'""",
    )
    ((listed,),) = query(
        db,
        """SELECT usd_per_instance_hour FROM aws_instance_prices WHERE source_family = 'price_list'
           AND region_code = 'us-east-1' AND instance_type = 'trn1.32xlarge' AND price_kind = 'on_demand'""",
    )
    assert listed == page == Decimal("21.50")
    status = query(
        db,
        """SELECT status FROM aws_price_reconciliation
           WHERE instance_type = 'trn1.32xlarge' AND region_code = 'us-east-1'""",
    )
    assert status == [("agrees",)]


def test_no_decoy_row_appears_in_any_view(demo):
    db, _ = demo
    decoys = prices_in_sample(decoys=True) - prices_in_sample(decoys=False)
    assert len(decoys) >= 5  # Windows, RHEL, Dedicated, BYOL, SQL, reservation rows at prices of their own
    views = {
        "aws_instance_prices": "SELECT region_code, instance_type, hourly_usd FROM aws_instance_prices "
        "WHERE source_family = 'price_list'",
        "aws_prices_by_region": "SELECT region_code, instance_type, hourly_usd FROM aws_prices_by_region",
        "aws_price_reconciliation": "SELECT region_code, instance_type, price_list_usd_per_instance_hour "
        "FROM aws_price_reconciliation WHERE region_code IS NOT NULL",
    }
    for view, sql in views.items():
        rows = {(r, t, Decimal(p)) for r, t, p in query(db, sql) if p is not None}
        assert rows, view
        assert not rows & decoys, (view, rows & decoys)
    on_demand = query(
        db,
        """SELECT region_code, instance_type, usd_per_instance_hour FROM aws_instance_prices
           WHERE source_family = 'price_list' AND price_kind = 'on_demand'""",
    )
    assert set(on_demand) <= prices_in_sample(decoys=False)


def test_the_capacity_block_only_type_has_no_on_demand_row(demo):
    db, _ = demo
    cb_only = query(
        db,
        """SELECT count(*) FROM aws_instance_prices WHERE source_family = 'price_list'
           AND instance_type = 'p5e.48xlarge' AND price_kind = 'on_demand'""",
    )
    assert cb_only == [(0,)]
    assert any(row["Instance Type"] == "p5e.48xlarge" for row in read_sample("us-east-1")[2])  # it is in the file


def test_show_prints_a_summary_per_region(demo):
    _, output = demo
    lines = {line.split()[1]: line for line in output.splitlines() if line.startswith("│ ") and "-" in line}
    assert {"us-east-1", "us-east-2", "eu-south-2"} <= set(lines)
    assert lines["eu-south-2"].split("│")[2].strip() == "0"  # a region pricing no accelerator is listed, empty
    cheapest = lines["us-east-1"].split("│")
    assert cheapest[7].strip().startswith(("trn", "inf")) and Decimal(cheapest[8].strip()) > 0
    assert int(cheapest[5].strip()) > 0  # its Savings Plans rates, counted beside reserved and spot


def test_show_says_where_the_reserved_savings_plan_and_spot_rows_are_with_their_counts(demo):
    db, output = demo
    text = " ".join(output.split())  # the terminal wraps the line
    counted = query(
        db,
        """SELECT price_kind, count(*), count(DISTINCT instance_type), count(DISTINCT region_code)
           FROM aws_pricelist_price_history WHERE valid_to IS NULL AND price_kind <> 'on_demand'
           GROUP BY ALL ORDER BY 1""",
    )
    assert [kind for kind, *_ in counted] == [
        "compute_savings_plan",
        "ec2_instance_savings_plan",
        "reserved",
        "sagemaker_hosting",
        "sagemaker_training",
        "spot",
    ]
    for kind, rows, types, regions in counted:
        assert f"{kind}: {rows:,} rows, {types} types in {regions} region(s)" in text
    assert "ratecard history TYPE --kind KIND --region R" in text


def test_history_shows_the_price_list_per_region_beside_the_page(demo):
    db, _ = demo
    wide = ["--wide", "--db", str(db)]
    shown = runner.invoke(app, ["history", "trn1.32xlarge", "--kind", "on_demand", *wide], terminal_width=250)
    assert shown.exit_code == 0, shown.output
    rows = [line for line in shown.output.splitlines() if "trn1.32xlarge" in line and "on_demand" in line]
    assert any("not stated" in r and "1.3438" in r for r in rows)  # the product page
    assert any("AWS price list" in r and "us-east-1" in r and "1.3438" in r for r in rows)
    reserved = runner.invoke(app, ["history", "trn1.32xlarge", "--kind", "reserved", *wide], terminal_width=250)
    assert "reserved 1y" in reserved.output and "on_demand" not in reserved.output
    plans = runner.invoke(
        app, ["history", "trn1.32xlarge", "--kind", "compute_savings_plan", *wide], terminal_width=250
    )
    assert "compute_savings_plan 3y All Upfront" in plans.output and "reserved" not in plans.output


# The figures the README quotes.


def readme_block(marker: str) -> list[str]:
    """The README's lines after `<!-- checked against the demo: marker -->`, up to the next blank line."""
    after = README.read_text().split(f"<!-- checked against the demo: {marker} -->\n", 1)[1]
    return [line for line in itertools.takewhile(str.strip, after.splitlines()) if not line.startswith("```")]


def readme_table(marker: str) -> list[list[str]]:
    """The rows of the README's table there, as cell texts (its header and rule left out)."""
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in readme_block(marker)[2:]]


def as_quoted(value: object, quoted: str) -> str:
    """A warehouse figure rounded half-up to the decimal places the README prints it with."""
    places = Decimal(1).scaleb(-len(quoted.partition(".")[2]))
    return str(Decimal(str(value)).quantize(places, rounding=ROUND_HALF_UP))


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("│").split("│")]


def test_the_readmes_aws_prices_are_the_demos(demo):
    db, _ = demo
    table = readme_table("aws_instance_prices")
    assert len(table) >= 4
    for instance, kind, region, per_instance, per_accelerator in table:
        found = query(
            db,
            f"""SELECT usd_per_instance_hour, usd_per_accelerator_hour FROM aws_instance_prices
                WHERE source_family <> 'price_list' AND instance_type = '{instance}' AND price_kind = '{kind}'
                  AND coalesce(region, 'not stated') = '{region}'""",
        )
        quoted = [(as_quoted(i, per_instance), as_quoted(a, per_accelerator)) for i, a in found]
        assert quoted == [(per_instance, per_accelerator)], (instance, kind, region, found)


def test_the_readmes_region_counts_are_what_show_prints(demo):
    _, output = demo
    shown = {
        row[0]: row[:6] for row in map(cells, output.splitlines()) if row[0] in ("eu-south-2", "us-east-1", "us-east-2")
    }
    table = readme_table("show's regions")
    assert [row[0] for row in table] == ["eu-south-2", "us-east-1", "us-east-2"]
    assert {row[0]: row for row in table} == shown


def test_the_readmes_cheapest_gpus_are_the_demos(demo):
    db, _ = demo
    table = readme_table("gpu_cheapest")
    assert len(table) >= 4
    for model, cheapest, provider, stock, offering, in_stock in table:
        found = query(
            db,
            "SELECT usd_per_gpu_hour, provider, coalesce(stock_status, 'unknown'), providers_offering, "
            f"providers_in_stock FROM gpu_cheapest WHERE gpu_model = '{model}'",
        )
        assert [(as_quoted(usd, cheapest), p, s, str(o), str(n)) for usd, p, s, o, n in found] == [
            (cheapest, provider, stock, offering, in_stock)
        ], model


def test_the_readmes_backfill_and_history_examples_run_on_the_demos_warehouse(demo, tmp_path):
    db = copy_file_warehouse(demo[0], tmp_path / "warehouse")
    quoted = readme_block("the backfill")
    backfilled = runner.invoke(app, ["backfill", "pricelist", "--offline", "--region", "us-east-1", "--db", str(db)])
    assert backfilled.exit_code == 0, backfilled.output
    assert quoted[0] in backfilled.output  # "26 rows added"
    history = ["history", "trn1.32xlarge", "--kind", "on_demand", "--region", "us-east-1", "--wide", "--db", str(db)]
    shown = runner.invoke(app, history, terminal_width=250)
    assert shown.exit_code == 0, shown.output
    timeline = [cells(line)[:7] for line in shown.output.splitlines() if ":00:00 │" in line]
    assert timeline == [cells(line) for line in quoted[1:]]
    reserved = ["history", "trn1.32xlarge", "--kind", "reserved_1y", "--region", "us-east-1", "--wide", "--db", str(db)]
    shown = runner.invoke(app, reserved, terminal_width=250)
    assert shown.exit_code == 0, shown.output
    assert "reserved 1y All Upfront standard" in shown.output and "reserved 3y" not in shown.output


def test_the_readmes_deployment_costs_are_the_demos_and_a_rerun_lands_no_duplicate(demo, tmp_path):
    db = copy_file_warehouse(demo[0], tmp_path / "warehouse")
    steps = [["import", str(PILOTS / "example.csv")], ["traffic", "--csv", str(PILOTS / "traffic_example.csv")]]
    for args in steps * 2:  # as make demo run twice
        landed = runner.invoke(app, ["pilot", *args, "--db", str(db)], terminal_width=200)
        assert landed.exit_code == 0, landed.output
    assert "nothing landed" in landed.output
    assert query(db, "SELECT count(*) FROM pilot_result_history") == [(10,)]
    costs = query(
        db, "SELECT workload, coalesce(provider || ' ', '') || offering, billing, monthly_usd FROM deployment_costs"
    )
    table = readme_table("pilot costs")
    assert len(table) >= 4
    for workload, offering, billing, monthly in table:
        found = [
            as_quoted(usd, monthly)
            for w, o, b, usd in costs
            if (w, b) == (workload, billing) and o.startswith(offering)
        ]
        assert found == [monthly], (workload, offering, found)


def test_a_pilot_on_a_reserved_price_names_its_terms_and_is_priced_once(demo, tmp_path):
    """A reserved kind is six prices (three purchase options, two classes): a pilot naming none is refused with the
    terms on offer, and one naming them is one row of cost_per_work, labelled; so is a plan's baseline."""
    db = copy_file_warehouse(demo[0], tmp_path / "copy")
    terms = query(
        db,
        """SELECT DISTINCT region, purchase_option, offering_class FROM offering_prices
           WHERE offering = 'trn1.32xlarge' AND price_kind = 'reserved_1y' AND purchase_option IS NOT NULL
           ORDER BY ALL""",
    )
    assert len(terms) >= 2
    region, option, offering_class = terms[0]
    add = ["pilot", "add", "--workload", "w", "--offering", "trn1.32xlarge", "--kind", "reserved_1y",
           "--region", region, "--unit", "tokens", "--units-per-hour", "1000000", "--passed",
           "--measured-on", "2026-09-22", "--db", str(db)]  # fmt: skip
    refused = runner.invoke(app, add, terminal_width=400)
    assert refused.exit_code == 8 and "is sold under terms" in refused.output and option in refused.output
    landed = runner.invoke(app, [*add, "--purchase-option", option, "--offering-class", offering_class])
    assert landed.exit_code == 0, landed.output
    assert query(db, "SELECT count(*), any_value(purchase_option), any_value(offering_class) FROM cost_per_work") == [
        (1, option, offering_class)
    ]
    # A plan against that reserved baseline names its terms too: one baseline price, so one row per other pilot.
    other = next(t for t in terms[1:] if t[0] == region)
    assert runner.invoke(app, [*add, "--purchase-option", other[1], "--offering-class", other[2]]).exit_code == 0
    plan = ["pilot", "plan", "--workload", "w", "--baseline", "trn1.32xlarge", "--kind", "reserved_1y",
            "--region", region, "--one-time-cost", "1000", "--monthly-maintenance", "0",
            "--monthly-volume", "1000000000", "--lifetime-months", "12", "--db", str(db)]  # fmt: skip
    unnamed = runner.invoke(app, plan, terminal_width=400)
    assert unnamed.exit_code == 8 and "is sold under terms" in unnamed.output
    named = runner.invoke(app, [*plan, "--purchase-option", option, "--offering-class", offering_class])
    assert named.exit_code == 0, named.output
    assert query(
        db,
        """SELECT baseline_purchase_option, baseline_offering_class, candidate_purchase_option,
                  candidate_offering_class FROM migration_payback""",
    ) == [(option, offering_class, other[1], other[2])]
