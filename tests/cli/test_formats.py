"""`--format json|csv|parquet` on `show`, `history`, `changes` and `pilot costs`: each carries the figures of the view
it reads exactly (JSON money as strings, the unit in the field's name; CSV the exact decimal text; Parquet DECIMAL),
checked against the same view read with DuckDB."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.cli.reporting import EXIT_USAGE
from warehouse.publish import snapshot_path

runner = CliRunner()


def run(db: Path, *args: str) -> str:
    result = runner.invoke(app, [*args, "--db", str(db)], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.stdout


def view(db: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(snapshot_path(db)), read_only=True) as con:
        return con.execute(sql).fetchall()


def picked(rows: list[dict[str, str]], names: tuple[str, ...], money: tuple[str, ...]) -> list[tuple[object, ...]]:
    """Each row's fields as the view holds them: money back to Decimal exactly, empty CSV cells as NULL."""
    return sorted(
        (
            tuple(r[n] or None for n in names) + tuple(None if r[m] in (None, "") else Decimal(r[m]) for m in money)
            for r in rows
        ),
        key=repr,
    )


def parquet_rows(path: Path, names: tuple[str, ...], money: tuple[str, ...]) -> list[tuple[object, ...]]:
    with duckdb.connect() as con:
        types = dict(con.execute(f"SELECT name, type FROM parquet_schema('{path}')").fetchall())
        rows = con.execute(f"SELECT {', '.join(names + money)} FROM '{path}'").fetchall()
    assert {types[m] for m in money} == {"FIXED_LEN_BYTE_ARRAY"}  # DECIMAL, never DOUBLE
    return sorted(rows, key=repr)


def every_format(db: Path, tmp_path: Path, args: list[str], names: tuple[str, ...], money: tuple[str, ...]):
    """The command's rows as JSON, CSV and Parquet, each as (names..., money...) tuples."""
    as_json = json.loads(run(db, *args, "--format", "json"))
    as_csv = list(csv.DictReader(io.StringIO(run(db, *args, "--format", "csv"))))
    path = tmp_path / f"{args[0]}.parquet"
    run(db, *args, "--format", "parquet", "--output", str(path))
    return as_json, as_csv, parquet_rows(path, names, money)


def assert_all_exact(expected, as_json, as_csv, as_parquet, names, money) -> None:
    assert expected
    assert all(isinstance(r[m], str | None) for r in as_json for m in money)  # money as strings, never a float
    assert picked(as_json, names, money) == expected
    assert picked(as_csv, names, money) == expected
    assert as_parquet == expected


def test_show_json_is_one_object_keyed_by_table_and_csv_and_parquet_one_table(worked, tmp_path):
    tables = json.loads(run(worked, "show", "--format", "json"))
    assert {"aws_prices", "gpu_cheapest", "accelerators_vs_nvidia", "cost_per_work", "sources"} <= set(tables)
    names, money = ("instance_type", "price_kind", "region"), ("usd_per_instance_hour", "usd_per_accelerator_hour")
    expected = sorted(
        view(
            worked,
            f"SELECT instance_type, price_kind, coalesce(region, 'not stated'), {', '.join(money)} "
            "FROM aws_instance_prices WHERE price_kind IN ('on_demand', 'capacity_block') "
            "AND source_family <> 'price_list'",
        ),
        key=repr,
    )
    as_csv = list(csv.DictReader(io.StringIO(run(worked, "show", "--format", "csv", "--table", "aws_prices"))))
    path = tmp_path / "prices.parquet"
    run(worked, "show", "--format", "parquet", "--table", "aws_prices", "--output", str(path))
    assert_all_exact(expected, tables["aws_prices"], as_csv, parquet_rows(path, names, money), names, money)
    gpus = view(worked, "SELECT gpu_model, provider, usd_per_gpu_hour FROM gpu_cheapest")
    assert picked(tables["gpu_cheapest"], ("gpu_model", "provider"), ("usd_per_gpu_hour",)) == sorted(gpus, key=repr)


def test_show_csv_without_a_table_is_refused_naming_the_tables(worked):
    result = runner.invoke(app, ["show", "--format", "csv", "--db", str(worked)])
    assert result.exit_code == EXIT_USAGE and "--table" in result.stderr and "gpu_cheapest" in result.stderr


def test_history_in_every_format_is_the_price_history_exactly(worked, tmp_path):
    names, money = ("provider", "price_kind", "region", "valid_from"), ("usd_per_accelerator_hour",)
    args = ["history", "trn1.32xlarge", "--kind", "on_demand"]
    as_json, as_csv, as_parquet = every_format(worked, tmp_path, args, names[:3], money)
    page = view(worked, "SELECT 'AWS', price_kind, region, valid_from, usd_per_accelerator_hour FROM "
                "aws_instance_price_history WHERE instance_type = 'trn1.32xlarge' "
                "AND price_kind = 'on_demand'")  # fmt: skip
    listed = view(worked, "SELECT 'AWS price list', price_kind, region_code, valid_from, usd_per_accelerator_hour "
                  "FROM aws_pricelist_price_history WHERE instance_type = 'trn1.32xlarge' "
                  "AND price_kind = 'on_demand'")  # fmt: skip
    assert len(listed) > 2  # the backfilled versions too
    expected = sorted(((p, k, r, v.isoformat(), usd) for p, k, r, v, usd in page + listed), key=repr)
    assert picked(as_json, names, money) == expected
    assert picked(as_csv, names, money) == expected
    assert as_parquet == sorted([(p, k, r, usd) for p, k, r, _, usd in expected], key=repr)


def test_changes_in_every_format_are_the_change_feed_exactly(worked, tmp_path):
    names = ("change", "offering", "price_kind", "region")
    money = ("old_usd_per_accelerator_hour", "new_usd_per_accelerator_hour", "change_pct")
    as_json, as_csv, as_parquet = every_format(worked, tmp_path, ["changes", "--since", "520w"], names, money)
    expected = sorted(
        view(worked, f"SELECT {', '.join(names)}, {', '.join(money)} FROM price_changes "
             "WHERE changed_at >= now() - INTERVAL 520 WEEK"),
        key=repr,
    )  # fmt: skip
    assert any(row[0] == "price" and row[-1] is not None for row in expected)  # a price move, with its percentage
    assert_all_exact(expected, as_json, as_csv, as_parquet, names, money)


def test_pilot_costs_in_every_format_are_deployment_costs_exactly(worked, tmp_path):
    names, money = ("offering", "billing"), ("monthly_usd", "usd_per_million_accepted", "usd_per_billed_hour")
    args = ["pilot", "costs", "--workload", "chat-8b"]
    tables = json.loads(run(worked, *args, "--format", "json"))
    assert set(tables) == {"ranking", "break_even", "not_ranked", "profile"}
    as_csv = list(csv.DictReader(io.StringIO(run(worked, *args, "--format", "csv"))))  # the ranking by default
    path = tmp_path / "costs.parquet"
    run(worked, *args, "--format", "parquet", "--output", str(path))
    expected = sorted(
        view(worked, f"SELECT coalesce(provider || ' ', '') || offering, billing, {', '.join(money)} "
             "FROM deployment_costs WHERE workload = 'chat-8b'"),
        key=repr,
    )  # fmt: skip
    assert_all_exact(expected, tables["ranking"], as_csv, parquet_rows(path, names, money), names, money)
