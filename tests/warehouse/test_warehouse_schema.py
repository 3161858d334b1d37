"""The warehouse's contract: every table, view, column and macro is commented; money is never floating point."""

from __future__ import annotations

import pytest

from warehouse.db import connect

PUBLIC_PRICE_COLUMNS = {
    "instance_type",
    "accelerator",
    "accelerator_count",
    "accelerator_memory_gib",
    "price_kind",
    "region",
    "usd_per_instance_hour",
    "usd_per_accelerator_hour",
    "usd_per_accelerator_hour_4dp",
    "source_url",
    "fetched_at",
}


@pytest.fixture
def con(tmp_path):
    with connect(tmp_path / "schema.duckdb") as connection:
        yield connection


def test_every_table_view_and_column_has_a_comment(con):
    tables = con.execute("SELECT table_name FROM duckdb_tables() WHERE comment IS NULL").fetchall()
    views = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal AND comment IS NULL").fetchall()
    columns = con.execute("""SELECT table_name || '.' || column_name FROM duckdb_columns()
                             WHERE NOT internal AND schema_name = 'main' AND comment IS NULL""").fetchall()
    assert (tables, views, columns) == ([], [], [])
    macro = con.execute("""SELECT comment FROM duckdb_functions()
                           WHERE function_name = 'aws_instance_prices_as_of'""").fetchone()
    assert macro and "taxes" in macro[0]


def test_price_comments_say_tax_and_unit(con):
    comments = dict(
        con.execute("""SELECT column_name, comment FROM duckdb_columns()
                                   WHERE table_name = 'aws_instance_prices'""").fetchall()
    )
    for column in ("usd_per_instance_hour", "usd_per_accelerator_hour"):
        assert "excluding tax" in comments[column], column
    assert "instance-hour" in comments["usd_per_instance_hour"]
    assert "derived" in comments["usd_per_accelerator_hour"].lower()


def test_money_is_decimal_everywhere(con):
    money = con.execute("""SELECT table_name, column_name, data_type FROM duckdb_columns()
                           WHERE column_name LIKE '%usd%'""").fetchall()
    assert money and all(dtype.startswith("DECIMAL") for _, _, dtype in money), money


def test_public_view_keeps_its_contract_columns(con):
    columns = {
        c
        for (c,) in con.execute("""SELECT column_name FROM duckdb_columns()
                                            WHERE table_name = 'aws_instance_prices'""").fetchall()
    }
    assert columns >= PUBLIC_PRICE_COLUMNS
    as_of = {d[0] for d in con.execute("SELECT * FROM aws_instance_prices_as_of(now()) LIMIT 0").description}
    assert as_of == columns


def test_schema_is_idempotent(tmp_path):
    for _ in range(2):
        with connect(tmp_path / "twice.duckdb") as con:
            count = con.execute("SELECT count(*) FROM duckdb_tables()").fetchone()
    # eleven data tables (notify_log and the notification claims and turn the latest), seven spec tables, three
    # pilot tables and the traffic profiles, schema_version and catalog_comments, the price list's type catalog
    # and its backfilled versions, the Neuron gate's four and the training runs, and the capture log
    assert count == (33,)


def test_schema_is_applied_once_and_again_when_it_changes(tmp_path):
    path = tmp_path / "versioned.duckdb"
    with connect(path) as con:
        con.execute("DROP VIEW gpu_cheapest")  # a current file is not touched again...
    with connect(path) as con:
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'gpu_cheapest'").fetchone() == (0,)
        con.execute("UPDATE schema_version SET sql_sha256 = 'an older release'")
    with connect(path) as con:  # ...but one made by another release gets the schema applied again
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'gpu_cheapest'").fetchone() == (1,)
