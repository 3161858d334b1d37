"""The DuckLake backend against the machine's real PostgreSQL: concurrent writer processes lose nothing (their data on
a real S3 protocol server on 127.0.0.1), and a reader in another process sees only committed landings, is never
blocked, and can pin a refresh's snapshot."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from tests.reliability.harness import start, wait_until
from tests.support.backends import lake_location, warehouse_at
from tests.support.localserver import free_port
from tests.support.pgserver import HOST, PORT, USER, fresh_database
from tests.support.s3server import s3_bucket
from warehouse.db import connect
from warehouse.lake import attach_id_sequences, extension_file, postgres_extension
from warehouse.lake_stats import LAKE_TABLES
from warehouse.quoting import literal
from warehouse.target import LAKE_DATA_ENV, WAREHOUSE_ENV

RATECARD = Path(sys.executable).with_name("ratecard")
# Eight sources for four writers, two each: AWS pages share the AWS history tables and Neuron pages the spec
# tables, so writers close and insert rows in the same tables at the same time (DuckLake conflicts, retried).
WRITERS = [
    ["aws_trn1", "neuron_trainium"],
    ["aws_inf1", "neuron_inferentia"],
    ["aws_inf2", "neuron_inferentia2"],
    ["aws_trn2", "neuron_trainium2"],
]


@pytest.fixture
def lake(tmp_path, monkeypatch):
    with warehouse_at("ducklake", tmp_path, monkeypatch) as location:
        yield location


@pytest.fixture
def new_lake(tmp_path, monkeypatch):
    """A catalog that no one has opened: its first writers create the lake's schema."""
    with warehouse_at("ducklake", tmp_path, monkeypatch, fresh=True) as location:
        yield location


def refresh_command(sources_file: Path, location: Path | str, source_ids: list[str]) -> list[str]:
    selected = [arg for source_id in source_ids for arg in ("--source", source_id)]
    return [str(RATECARD), "refresh", "--sources", str(sources_file), "--warehouse", str(location), *selected]


def rows_by_source(location: Path | str) -> Counter[tuple[str, str]]:
    """Rows of every table that has a source_id column, per (table, source)."""
    counts: Counter[tuple[str, str]] = Counter()
    with connect(location, read_only=True) as con:
        tables = con.execute(
            """SELECT DISTINCT table_name FROM duckdb_columns()
               WHERE column_name = 'source_id' AND database_name = current_database()
                 AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE database_name = current_database())"""
        ).fetchall()
        for (table,) in tables:
            for source_id, n in con.execute(f"SELECT source_id, count(*) FROM {table} GROUP BY ALL").fetchall():
                counts[(table, source_id)] = n
    return counts


@pytest.mark.parametrize("attempt", range(5))
def test_writers_attaching_a_new_catalog_at_once_all_get_its_id_sequences(attempt):
    """Every writer creates the id sequences if they are missing; PostgreSQL's own IF NOT EXISTS fails the losers of
    that race ("Key (relname, relnamespace)=(..., 2200) already exists") unless the creation is serialised."""
    writers = 4
    with fresh_database("ratecard_sequences") as dbname:
        location = lake_location(dbname)
        cons = [duckdb.connect() for _ in range(writers)]
        for con in cons:
            con.execute(f"LOAD {literal(str(postgres_extension()))}")
        ready = threading.Barrier(writers)
        failures: list[BaseException] = []

        def attach(con: duckdb.DuckDBPyConnection) -> None:
            ready.wait()
            try:
                attach_id_sequences(con, location)
            except duckdb.Error as exc:
                failures.append(exc)

        threads = [threading.Thread(target=attach, args=(con,)) for con in cons]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        ids = [con.execute("SELECT next_fetch_id()").fetchone() for con in cons]
        for con in cons:
            con.close()
    assert failures == [], failures
    assert sorted(ids) == [(1,), (2,), (3,), (4,)], "one sequence, shared by every writer"


def test_four_writer_processes_land_at_once_and_lose_nothing(sources_file, new_lake, tmp_path, monkeypatch):
    """On the lake's data path a team uses: S3-compatible storage (moto's S3 server on 127.0.0.1)."""
    with s3_bucket(monkeypatch) as bucket:
        monkeypatch.setenv(LAKE_DATA_ENV, f"s3://{bucket.name}/lake/")
        env = dict(os.environ)
        writers = [
            subprocess.Popen(
                refresh_command(sources_file, new_lake, ids),
                env=env,
                text=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            for ids in WRITERS
        ]
        outputs = [writer.communicate(timeout=600)[0] for writer in writers]
        assert [writer.returncode for writer in writers] == [0, 0, 0, 0], outputs
        landed = rows_by_source(new_lake)
        written = bucket.keys("lake/")
        with connect(new_lake, read_only=True) as con:
            fetches = con.execute("SELECT count(*), count(DISTINCT fetch_id) FROM fetch_log").fetchone()
            outcomes = con.execute("SELECT DISTINCT outcome FROM fetch_log").fetchall()
    assert written and not (tmp_path / "lake").exists()  # the data went to the bucket, none to the local disk

    # The same sources, one process, into a DuckDB file: what every row count must be.
    reference = tmp_path / "reference" / "prices.duckdb"
    everything = [source_id for ids in WRITERS for source_id in ids]
    done = subprocess.run(
        refresh_command(sources_file, reference, everything), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr

    expected = rows_by_source(reference)
    assert len(expected) >= 20 and sum(expected.values()) >= 60  # every source landed rows to compare
    assert landed == expected
    assert fetches == (8, 8)  # one log row per source, ids unique across the four processes
    assert outcomes == [("landed",)]


READER = """
import sys, duckdb
location, postgres, ducklake, version = sys.argv[1:5]
con = duckdb.connect()
con.execute(f"LOAD '{postgres}'")
con.execute(f"LOAD '{ducklake}'")
pinned = f", SNAPSHOT_VERSION {version}" if version != "latest" else ""
con.execute(f"ATTACH '{location}' AS lake (READ_ONLY{pinned})")
print(con.execute("SELECT count(*) FROM lake.aws_instance_price_history").fetchone()[0])
"""


def read_count(location: str, version: int | str = "latest") -> int:
    """A SQL client in its own process: plain DuckDB with the two extensions, attaching the lake read-only."""
    args = [str(postgres_extension()), str(extension_file("duckdb_extension_ducklake", "ducklake")), str(version)]
    done = subprocess.run(
        [sys.executable, "-c", READER, location, *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_readers_see_only_committed_landings_and_are_never_blocked(sources_file, lake, tmp_path, children):
    with connect(lake, read_only=True) as con:  # the empty lake's own snapshots (its schema) come before
        (before,) = con.execute("SELECT max(snapshot_id) FROM lake.snapshots()").fetchone()
    first = subprocess.run(
        refresh_command(sources_file, lake, ["aws_trn1"]), capture_output=True, text=True, check=False
    )
    assert first.returncode == 0, first.stdout + first.stderr
    committed = read_count(lake)
    assert committed > 0
    with connect(lake, read_only=True) as con:
        (after_first,) = con.execute("SELECT max(snapshot_id) FROM lake.snapshots()").fetchone()
        labels = con.execute(
            "SELECT DISTINCT commit_message, commit_extra_info FROM lake.snapshots()"
            " WHERE commit_message IS NOT NULL AND snapshot_id > $before",
            {"before": before},
        ).fetchall()
    # Every landing commit names its refresh: lake.snapshots() tells which snapshot ends which refresh.
    assert [message for message, _ in labels] == ["ratecard refresh"]
    assert '"refresh": "cli ' in labels[0][1]

    # A writer stopped dead inside its landing transaction: rows written, nothing committed.
    marker = tmp_path / "mid-landing"
    env = {**os.environ, "RATECARD_FAILPOINT": f"landing:{marker}", WAREHOUSE_ENV: lake}
    code = "import sys; from pipelines.cli.app import app; sys.argv[0] = 'ratecard'; app()"
    writer = start(
        children,
        code,
        "refresh",
        "--sources",
        str(sources_file),
        "--source",
        "aws_inf2",
        env=env,
        stdout=subprocess.DEVNULL,
    )
    wait_until(marker.exists, writer, "the writer to stop inside its landing transaction", timeout_s=300)

    assert read_count(lake) == committed  # answered while the writer holds its transaction open: not blocked
    assert writer.poll() is None
    writer.kill()
    writer.wait(timeout=30)
    assert read_count(lake) == committed  # killed before COMMIT: nothing of it, ever

    again = subprocess.run(
        refresh_command(sources_file, lake, ["aws_inf2"]), capture_output=True, text=True, check=False
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert read_count(lake) > committed
    assert read_count(lake, after_first) == committed  # time travel: the snapshot after the first refresh


def test_the_reading_commands_work_on_a_lake(sources_file, lake, tmp_path):
    """show, history, changes, reparse, export and dashboard against a lake, as against a file."""
    landed = subprocess.run(
        refresh_command(sources_file, lake, ["aws_trn1"]), capture_output=True, text=True, check=False
    )
    assert landed.returncode == 0, landed.stdout + landed.stderr
    commands = {
        "show": ["show"],
        "history": ["history", "trn1.32xlarge"],
        "changes": ["changes"],
        "reparse": ["reparse", "--sources", str(sources_file), "--source", "aws_trn1"],
        "export": ["export", "--out", str(tmp_path / "exports")],
        "dashboard": ["dashboard", "--out", str(tmp_path / "site")],
    }
    outputs = {}
    for name, args in commands.items():  # in this process: the refresh above was the process under test
        done = CliRunner().invoke(app, [*args, "--warehouse", lake], terminal_width=200)
        assert done.exit_code == 0, (name, done.stdout + done.stderr)
        outputs[name] = done.stdout
    assert "21.50" in outputs["show"] and "trn1.32xlarge" in outputs["history"]
    assert "1 fetches replayed: 1 landed, 0 unchanged, 0 quarantined" in outputs["reparse"]  # history rebuilt
    manifest = (tmp_path / "exports" / "manifest.json").read_text()
    assert '"lake_snapshot_id"' in manifest and "accelerator_hour_prices" in manifest
    assert (tmp_path / "site" / "index.html").exists()


@pytest.mark.parametrize(
    ("conninfo", "says", "hint"),
    [
        # The server answers, but the database was never created: DuckLake will not create it.
        (
            f"dbname=ratecard_never_created host={HOST} port={PORT} user={USER}",
            "does not exist",
            "create it (createdb NAME",
        ),
        # Nothing listens on the port: the server is down or the conninfo names the wrong one.
        (f"dbname=ratecard host={HOST} port={free_port()} user={USER}", "cannot be reached", "start the catalog"),
    ],
    ids=["database_missing", "server_down"],
)
def test_an_unusable_catalog_is_exit_9_with_what_to_do(sources_file, tmp_path, monkeypatch, conninfo, says, hint):
    monkeypatch.setenv(LAKE_DATA_ENV, str(tmp_path / "lake"))
    location = f"ducklake:postgres:{conninfo}"
    done = subprocess.run(
        refresh_command(sources_file, location, ["aws_trn1"]), capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 9, done.stdout + done.stderr
    assert says in done.stderr and f"hint: {hint}" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "lake").exists() or not any((tmp_path / "lake").rglob("*.parquet"))  # nothing written


def test_a_new_lakes_tables_are_empty_and_each_has_its_statistics_row(new_lake):
    # Without a statistics row DuckLake asks the catalog again for every column of every query (warehouse/lake_stats).
    with connect(new_lake) as con:
        tables = sorted(name for (name,) in con.execute(LAKE_TABLES).fetchall())
        rows = {table: con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in tables}
        with_stats = con.execute(
            """SELECT t.table_name FROM __ducklake_metadata_lake.ducklake_table t
               JOIN __ducklake_metadata_lake.ducklake_table_stats s USING (table_id) WHERE t.end_snapshot IS NULL"""
        ).fetchall()
    assert len(tables) > 20 and "quarantine" in tables
    written = {"schema_version", "catalog_comments"}  # filled as the schema is applied
    assert {table for table, n in rows.items() if n} == written
    assert set(tables) - {name for (name,) in with_stats} == set()
