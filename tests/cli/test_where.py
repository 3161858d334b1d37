"""`ratecard where` on the demo warehouse: Trainium2 by its family name in Ohio as a Capacity Block, the rows the view
gives exactly in every format, and an unknown name refused naming the nearest."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

import duckdb
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.cli.reporting import EXIT_USAGE
from warehouse.publish import snapshot_path

runner = CliRunner()


def where(db, *args):
    result = runner.invoke(app, ["where", *args, "--db", str(db)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_trn2_is_a_capacity_block_in_us_east_ohio(demo_warehouse):
    shown = where(demo_warehouse, "trn2")
    row = next(line for line in shown.splitlines() if "Trainium2" in line)
    assert "US East (Ohio) (us-east-2)" in row and "2.2351" in row  # the price at 4 dp in the table
    assert "capacity_block" in shown and "trn2.48xlarge" in shown
    assert max(len(line) for line in shown.splitlines()) <= 100
    (found,) = json.loads(where(demo_warehouse, "Trainium2", "--format", "json"))
    assert (found["provider"], found["region"], found["region_code"], found["price_kind_family"]) == (
        "AWS",
        "US East (Ohio)",
        "us-east-2",
        "capacity_block",
    )
    assert found["cheapest_usd_per_accelerator_hour"] == "2.235050000000000000"  # exact, unit in the name
    assert found["first_seen_at"] <= found["last_seen_at"] and found["source_url"].endswith("capacity_blocks.html")


def test_every_format_carries_the_views_rows_exactly(demo_warehouse):
    with duckdb.connect(str(snapshot_path(demo_warehouse)), read_only=True) as con:
        expected = sorted(
            con.execute(
                "SELECT provider, coalesce(region, ''), price_kind_family, cheapest_usd_per_accelerator_hour"
                " FROM accelerator_availability WHERE accelerator_model = 'H100' AND listed_now"
            ).fetchall()
        )
    as_json = json.loads(where(demo_warehouse, "H100", "--format", "json"))
    as_csv = list(csv.DictReader(io.StringIO(where(demo_warehouse, "nvidia h100", "--format", "csv"))))
    for rows in (as_json, as_csv):
        assert (
            sorted(
                (
                    r["provider"],
                    r["region"] or "",
                    r["price_kind_family"],
                    Decimal(r["cheapest_usd_per_accelerator_hour"]),
                )
                for r in rows
            )
            == expected
        )
    kinds = [r["price_kind_family"] for r in as_json]
    assert kinds == sorted(kinds) and len(expected) > 10
    shown = where(demo_warehouse, "H100")
    assert "not stated" in shown and "Hyperstack" in shown  # a listing naming no region is never given one


def test_all_adds_what_is_no_longer_listed_and_says_so(demo_warehouse):
    shown = where(demo_warehouse, "trn2", "--all")
    assert "and 0 that no longer list it" in shown  # the demo's history has nothing closed yet
    assert json.loads(where(demo_warehouse, "trn2", "--all", "--format", "json"))[0]["listed_now"] is True


def test_an_unknown_name_is_one_line_naming_the_nearest(demo_warehouse):
    result = runner.invoke(app, ["where", "trn9", "--db", str(demo_warehouse)])
    assert result.exit_code == EXIT_USAGE
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "unknown accelerator 'trn9'; nearest: trn2" in errors[0], result.stderr
