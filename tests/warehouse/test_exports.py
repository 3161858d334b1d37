"""Exports round-trip: every public view and history table, through DuckDB COPY, read back equal, money DECIMAL."""

from __future__ import annotations

import json

import dagster as dg
import duckdb
import pytest
from typer.testing import CliRunner

from assets.change_feed import warehouse_exports
from pipelines.cli.app import app
from pipelines.orchestration.resources import WarehouseResource
from warehouse.export import HISTORY_TABLES, file_sha256
from warehouse.publish import snapshot_path

# Its module fixture lands a warehouse: every test of the module in one xdist worker, so it is landed once.
pytestmark = pytest.mark.xdist_group("exports")

runner = CliRunner()
SOURCES = ["aws_trn1", "aws_capacity_blocks", "fx_ecb", "gpu_leadergpu", "gpu_hyperstack"]
# At least these (versioned tables added later are exported the same way: every table with valid_to and fetched_at).
HISTORY = ["aws_instance_price_history", "aws_instance_spec_history", "fx_rates", "gpu_listing_history"]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    db = tmp_path_factory.mktemp("exports") / "prices.duckdb"
    args = ["refresh", "--offline", "--db", str(db)] + [a for s in SOURCES for a in ("--source", s)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return db


def export(db, out, fmt):
    result = runner.invoke(app, ["export", "--format", fmt, "--out", str(out), "--db", str(db)])
    assert result.exit_code == 0, result.output
    return json.loads((out / "manifest.json").read_text())


def public_views(con):
    return sorted(v for (v,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall())


def test_parquet_reads_back_equal_to_the_views_with_decimal_money(warehouse, tmp_path):
    manifest = export(warehouse, tmp_path, "parquet")
    with duckdb.connect(str(snapshot_path(warehouse)), read_only=True) as con:
        views = public_views(con)
        assert {"aws_instance_prices", "gpu_listings", "price_changes"} <= set(views)
        history = sorted(t for t, _comment in con.execute(HISTORY_TABLES).fetchall())
        assert set(HISTORY) <= set(history)
        assert sorted(f["name"] for f in manifest["files"]) == sorted(views + history)
        for view in views:
            exported = f"read_parquet('{tmp_path / view}.parquet')"
            for a, b in ((view, exported), (exported, view)):
                assert con.execute(f"SELECT count(*) FROM (FROM {a} EXCEPT ALL FROM {b})").fetchone() == (0,), view
            types = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE FROM {exported})").fetchall())
            money = {c: t for c, t in types.items() if c.startswith("usd_per")}
            assert all(t.startswith("DECIMAL") for t in money.values()), (view, money)
        parquet = f"read_parquet('{tmp_path}/aws_instance_prices.parquet')"
        prices = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE FROM {parquet})").fetchall())
        assert prices["usd_per_accelerator_hour"] == "DECIMAL(38,18)"


def test_history_is_partitioned_by_fetch_date_hive_style(warehouse, tmp_path):
    manifest = export(warehouse, tmp_path, "parquet")
    by_name = {f["name"]: f for f in manifest["files"]}
    with duckdb.connect(str(snapshot_path(warehouse)), read_only=True) as con:
        for table in HISTORY:
            entry = by_name[table]
            dates = [
                d
                for (d,) in con.execute(
                    f"SELECT DISTINCT CAST(timezone('UTC', fetched_at) AS DATE)::VARCHAR FROM {table} ORDER BY 1"
                ).fetchall()
            ]
            assert entry["partitions"] == [f"fetch_date={d}" for d in dates] and dates
            files = f"read_parquet('{tmp_path / table}/*/*.parquet', hive_partitioning = true)"
            back = f"(SELECT * EXCLUDE (fetch_date) FROM {files})"
            for a, b in ((table, back), (back, table)):
                assert con.execute(f"SELECT count(*) FROM (FROM {a} EXCEPT ALL FROM {b})").fetchone() == (0,), table
            assert entry["rows"] == con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_the_manifest_gives_schema_rows_comments_and_the_snapshot(warehouse, tmp_path):
    manifest = export(warehouse, tmp_path, "parquet")
    snapshot = snapshot_path(warehouse)
    assert manifest["snapshot"]["sha256"] == file_sha256(snapshot)
    with duckdb.connect(str(snapshot), read_only=True) as con:
        assert (
            manifest["snapshot"]["through_fetch_id"] == con.execute("SELECT max(fetch_id) FROM fetch_log").fetchone()[0]
        )
        for entry in manifest["files"]:
            expected = con.execute(
                """SELECT column_name, data_type, comment FROM duckdb_columns()
                   WHERE table_name = $n ORDER BY column_index""",
                {"n": entry["name"]},
            ).fetchall()
            assert [(c["name"], c["type"], c["comment"]) for c in entry["columns"]] == expected
            assert entry["comment"] and all(c["comment"] for c in entry["columns"])
            assert entry["rows"] == con.execute(f'SELECT count(*) FROM "{entry["name"]}"').fetchone()[0]


def test_csv_carries_the_same_rows(warehouse, tmp_path):
    tmp_path = tmp_path / "it's csv"  # a quote in the folder name must not break the COPY statement
    manifest = export(warehouse, tmp_path, "csv")
    entry = next(f for f in manifest["files"] if f["name"] == "gpu_listings")
    assert entry["path"] == "gpu_listings.csv" and entry["rows"] > 0
    folder = str(tmp_path).replace("'", "''")
    with duckdb.connect() as con:
        assert con.execute(f"SELECT count(*) FROM read_csv('{folder}/gpu_listings.csv')").fetchone() == (entry["rows"],)
        parts = con.execute(f"SELECT count(*) FROM read_csv('{folder}/gpu_listing_history/*/*.csv')").fetchone()
    assert parts == (next(f for f in manifest["files"] if f["name"] == "gpu_listing_history")["rows"],)


def test_the_dagster_asset_writes_the_exports_beside_the_warehouse(warehouse):
    result = dg.materialize([warehouse_exports], resources={"warehouse": WarehouseResource(db_path=str(warehouse))})
    metadata = result.asset_materializations_for_node("warehouse_exports")[0].metadata
    manifest = json.loads((warehouse.parent / "exports" / "manifest.json").read_text())
    assert metadata["files"].value == len(manifest["files"]) and manifest["format"] == "parquet"
    assert metadata["snapshot_sha256"].value == file_sha256(snapshot_path(warehouse))
