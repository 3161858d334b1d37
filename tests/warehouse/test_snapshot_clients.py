"""The published snapshot opens in the SQL clients people have: the DuckDB 1.5 CLI and DuckDB 1.x Python engines.

The Python engines are 1.5.5 and 1.1.3, the oldest the README promises. After an offline refresh of the
samples, the example pilots, plan, traffic profiles and training runs, and a backfill of the price list's past
versions, each client queries every public view and every as-of table macro,
enumerated from the catalog (so views added later are covered), and must count the same rows as the pipeline's
DuckDB (1.5.5) does on the working file, with each DECIMAL money column still DECIMAL and summing to the same
exact value.

A client such as DBeaver opens a file read-write by default: the pipeline's engine and the CLI also open a copy of
the snapshot so, query everything, checkpoint, and open it again, and the copy must still read the same.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import tests.support.older_clients as older_clients
from pipelines.cli.app import app
from warehouse.publish import snapshot_path

# Its module fixture lands a warehouse: every test of the module in one xdist worker, so it is landed once.
pytestmark = pytest.mark.xdist_group("snapshot_clients")

# What an as-of macro's parameter is given, by parameter name. A table macro with a parameter not listed here
# fails the test: add how to call it, so the new macro is checked too.
ARGUMENTS = {"ts": "current_timestamp"}
VIEWS = """
SELECT view_name FROM duckdb_views()
WHERE NOT internal AND database_name = current_database() AND schema_name = 'main' ORDER BY view_name
"""
TABLE_MACROS = """
SELECT function_name, parameters FROM duckdb_functions()
WHERE function_type = 'table_macro' AND NOT internal AND database_name = current_database() ORDER BY function_name
"""
VIEW_COMMENTS = """
SELECT view_name, comment FROM duckdb_views()
WHERE NOT internal AND database_name = current_database() AND schema_name = 'main' ORDER BY view_name
"""


PILOTS = Path(__file__).resolve().parents[2] / "pipelines" / "samples" / "pilots"
PLAN = [
    "--workload",
    "chat-8b",
    "--provider",
    "Hyperstack",
    "--baseline",
    "NVIDIA H100 SXM",
    "--one-time-cost",
    "40000",
]
PLAN += ["--monthly-maintenance", "500", "--monthly-volume", "2000000000", "--lifetime-months", "12"]


@pytest.fixture(scope="module")
def working_file(tmp_path_factory) -> Path:
    """The samples refreshed, then what the demo adds (pilots, a plan, traffic, training runs) and one region's
    past price-list versions: the backfill publishes the snapshot last."""
    db = tmp_path_factory.mktemp("clients") / "prices.duckdb"
    for args in (
        ["refresh", "--offline"],
        ["pilot", "import", str(PILOTS / "example.csv")],
        ["pilot", "plan", *PLAN],
        ["pilot", "traffic", "--csv", str(PILOTS / "traffic_example.csv")],
        ["pilot", "training", str(PILOTS / "training_example.csv")],
        ["backfill", "pricelist", "--offline", "--region", "us-east-1"],
    ):
        result = CliRunner().invoke(app, [*args, "--db", str(db)], terminal_width=200)
        assert result.exit_code == 0, (args, result.output)
    return db


def public_relations(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Every public view and table macro, as the FROM clause that reads it."""
    relations = {name: f'"{name}"' for (name,) in con.execute(VIEWS).fetchall()}
    for name, parameters in con.execute(TABLE_MACROS).fetchall():
        unknown = [p for p in parameters if p not in ARGUMENTS]
        assert not unknown, f"table macro {name}: no test argument for parameter(s) {unknown}; add them to ARGUMENTS"
        relations[name] = f'"{name}"({", ".join(ARGUMENTS[p] for p in parameters)})'
    return relations


def summary_query(con: duckdb.DuckDBPyConnection) -> str:
    """One statement giving, per relation, its row count and each DECIMAL column's type and exact sum."""
    parts = []
    for name, source in sorted(public_relations(con).items()):
        columns = con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
        money = [
            f"'{column}:' || coalesce(any_value(typeof(\"{column}\")), '') || '=' || "
            f"coalesce(sum(\"{column}\")::VARCHAR, 'null')"
            for column, column_type, *_ in columns
            if column_type.startswith("DECIMAL")
        ]
        sums = f"concat_ws(' ', {', '.join(money)})" if money else "''"
        parts.append(f"SELECT '{name}' AS relation, count(*) AS row_count, {sums} AS money FROM {source}")
    return "\nUNION ALL ".join(parts) + "\nORDER BY relation"


@pytest.fixture(scope="module")
def expected(working_file) -> tuple[str, list[tuple[str, int, str]], list[tuple[str, str]]]:
    """The summary query, what the pipeline's DuckDB answers on the working file, and the views' comments there."""
    with duckdb.connect(str(working_file), read_only=True) as con:
        query = summary_query(con)
        return query, con.execute(query).fetchall(), con.execute(VIEW_COMMENTS).fetchall()


@pytest.fixture(scope="module")
def snapshot(working_file) -> Path:
    return snapshot_path(working_file)


def test_expected_covers_every_view_with_money(expected):
    _, rows, comments = expected
    relations = {relation for relation, _, _ in rows}
    core = {"aws_instance_prices", "gpu_listings", "gpu_cheapest", "accelerator_hour_prices", "gpu_listings_as_of"}
    assert core <= relations
    counts = {relation: count for relation, count, _ in rows}
    assert all(counts[relation] > 0 for relation in core), counts  # a comparison of empty views proves nothing
    assert counts["pilot_results"] >= 2 and counts["traffic_profiles"] > 0 and counts["training_runs"] > 0, counts
    money = {relation: sums for relation, _, sums in rows}
    assert "usd_per_gpu_hour:DECIMAL(38,18)=" in money["gpu_cheapest"], money["gpu_cheapest"]
    assert {name for name, _ in comments} <= relations and all(comment for _, comment in comments)


def test_snapshot_reads_the_same_in_the_pipelines_duckdb(expected, snapshot):
    query, rows, comments = expected
    with duckdb.connect(str(snapshot), read_only=True) as con:
        assert con.execute(query).fetchall() == rows
        assert con.execute(VIEW_COMMENTS).fetchall() == comments


def test_duckdb_cli_1_5_queries_every_view(expected, snapshot, working_file):
    query, rows, comments = expected
    assert older_clients.cli_version() == older_clients.CLI_VERSION
    answer = older_clients.query_cli(snapshot, query)
    assert [(r["relation"], r["row_count"], r["money"]) for r in answer] == rows
    assert [(r["view_name"], r["comment"]) for r in older_clients.query_cli(snapshot, VIEW_COMMENTS)] == comments


@pytest.mark.parametrize("engine", sorted(older_clients.PYTHON_ENGINES))
def test_duckdb_python_1_x_queries_every_view(expected, snapshot, working_file, engine):
    query, rows, comments = expected
    python = older_clients.python_engine(engine)
    version, answer = older_clients.query_python_engine(python, snapshot, query)
    assert version == engine
    assert [tuple(r) for r in answer] == rows
    assert [tuple(r) for r in older_clients.query_python_engine(python, snapshot, VIEW_COMMENTS)[1]] == comments


# The pipeline's own engine (Python 1.5.5, the release the failure was seen with) and the CLI (1.5.6); the oldest
# engine promised, 1.1.3, reads every view above (a read-write session of it costs the suite another 18 s).
@pytest.mark.parametrize("engine", ["pipeline", "cli"])
def test_a_client_opening_a_copy_read_write_and_checkpointing_leaves_it_readable(expected, snapshot, tmp_path, engine):
    """Two sessions, each read-write: every view and macro queried, then CHECKPOINT; the copy reads the same after."""
    query, rows, _ = expected
    copy = tmp_path / "client-copy.duckdb"
    shutil.copy(snapshot, copy)
    if engine == "pipeline":
        for _ in range(2):
            with duckdb.connect(str(copy)) as con:
                assert con.execute(query).fetchall() == rows
                con.execute("CHECKPOINT")
    else:
        for _ in range(2):
            answer = older_clients.cli_read_write_session(copy, query)
            assert [(r["relation"], r["row_count"], r["money"]) for r in answer] == rows
    assert not copy.with_name(copy.name + ".wal").exists()  # each checkpoint wrote everything into the file
    with duckdb.connect(str(copy), read_only=True) as con:
        assert con.execute(query).fetchall() == rows
