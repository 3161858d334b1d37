"""`ratecard` refusing bad input as a user sees it: the real CLI in a subprocess, one error line naming the file,
the line, the field or the problem, a hint, a distinct exit code, and never a traceback unless --debug asks."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from pipelines.sources.file import DEFAULT_SOURCES_FILE
from tests.reliability.harness import start, wait_until

RATECARD = Path(sys.executable).with_name("ratecard")
BUNDLED = DEFAULT_SOURCES_FILE.read_text()
# Holds the file read-write, as a SQL client left open on the working file would, until killed.
HOLD_OPEN = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
open(sys.argv[2], "w").close()
time.sleep(300)
"""


def ratecard(*args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TQDM_DISABLE": "1", "DAGSTER_DISABLE_TELEMETRY": "1", "GX_ANALYTICS_ENABLED": "False"}
    return subprocess.run(
        [str(RATECARD), *map(str, args)], capture_output=True, text=True, env=env, timeout=300, check=False
    )


def refused(result: subprocess.CompletedProcess[str], code: int, *named: str) -> str:
    """Assert the one-line refusal: exit code, no traceback, one `error:` line naming everything; returns it."""
    output = result.stdout + result.stderr
    assert result.returncode == code, output
    assert "Traceback" not in output, output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, output
    assert all(part in errors[0] for part in named), (named, errors[0])
    assert any(line.startswith("hint: ") for line in result.stderr.splitlines()), output
    return errors[0]


def line_of(text: str, needle: str, start: int = 0) -> int:
    """1-based number of the first line containing `needle` at or after line `start` (1-based)."""
    lines = text.splitlines()
    return next(n for n in range(max(start, 1), len(lines) + 1) if needle in lines[n - 1])


def sources_file(tmp_path: Path, old: str, new: str) -> tuple[Path, str]:
    """The bundled sources file with one edit, as a user's own copy would be."""
    assert old in BUNDLED, old
    text = BUNDLED.replace(old, new, 1)
    path = tmp_path / "sources.toml"
    path.write_text(text)
    return path, text


def ratecard_database(path: Path) -> Path:
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE fetch_log (fetch_id INTEGER)")
    return path


def newer_duckdb_file(path: Path, storage_version: int) -> Path:
    """A real DuckDB file whose main header claims a storage version this DuckDB cannot read.

    The header block starts with an 8-byte checksum over the rest of its 4096 bytes, then the magic b"DUCK" and
    the storage version (uint64, little-endian); the checksum is DuckDB's: 5381 xor'ed with each uint64 word
    times 0xbf58476d1ce4e5b9.
    """
    data = bytearray(ratecard_database(path).read_bytes())
    assert data[8:12] == b"DUCK", data[:16].hex()
    struct.pack_into("<Q", data, 12, storage_version)
    checksum = 5381
    for (word,) in struct.iter_unpack("<Q", data[8:4096]):
        checksum ^= (word * 0xBF58476D1CE4E5B9) % 2**64
    struct.pack_into("<Q", data, 0, checksum)
    path.write_bytes(data)
    return path


@pytest.fixture
def held_database(tmp_path: Path) -> Iterator[Path]:
    """A DuckDB file another process holds open read-write for the whole test."""
    db, ready, children = ratecard_database(tmp_path / "prices.duckdb"), tmp_path / "ready", []
    holder = start(children, HOLD_OPEN, db, ready)
    try:
        wait_until(ready.exists, holder, "the holder to open the database")
        yield db
    finally:
        holder.kill()
        holder.wait(timeout=10)


# -- the sources file ----------------------------------------------------------------------------------------


def test_sources_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    path, text = sources_file(tmp_path, 'id = "aws_inf1"', "id = aws_inf1")
    line = refused(ratecard("refresh", "--offline", "--sources", path, "--db", tmp_path / "p.duckdb"), 4)
    assert line == f"error: {path}:{line_of(text, 'id = aws_inf1')}:6: TOML syntax error: Invalid value"
    assert not (tmp_path / "p.duckdb").exists()


def test_sources_unfinished_document_points_at_its_end(tmp_path: Path) -> None:
    path, text = sources_file(tmp_path, BUNDLED, BUNDLED + "\n[[sources]]\nid = ")
    refused(
        ratecard("reparse", "--sources", path, "--db", tmp_path / "p.duckdb"),
        4,
        f"{path}:{len(text.splitlines())}:6:",
        "TOML syntax error",
    )


def test_paging_by_a_token_without_its_parameter_names_the_source_and_field(tmp_path: Path) -> None:
    declared = 'paging = { next_link = "NextPageLink", max_pages = 200, split = '
    declared += '{ items = "Items", by = "armRegionName" } }'
    path, _ = sources_file(tmp_path, declared, 'paging = { next_token = "nextPageToken" }')
    refused(
        ratecard("refresh", "--offline", "--sources", path, "--db", tmp_path / "p.duckdb"),
        4,
        "source 'gpu_azure'",
        "paging",
        "next_token and token_param go together",
    )


def test_unknown_adapter_names_the_source_line_and_known_adapters(tmp_path: Path) -> None:
    path, text = sources_file(tmp_path, 'adapter = "gpu_lambda"', 'adapter = "gpu_lamda"')
    line = refused(
        ratecard("refresh", "--offline", "--sources", path, "--db", tmp_path / "p.duckdb"),
        4,
        "source 'gpu_lambda'",
        "field adapter",
        "unknown adapter 'gpu_lamda'",
        "'gpu_lambda'",
    )
    assert line.startswith(f"error: {path}:{line_of(text, 'gpu_lamda')}: "), line


def test_a_declared_table_option_out_of_its_set_is_refused_when_the_file_loads(tmp_path: Path) -> None:
    """`price_per = "node"` is caught by the sources-file check (exit 4), before anything is fetched."""
    path, _ = sources_file(tmp_path, 'price_per = "gpu"', 'price_per = "node"')
    refused(
        ratecard("refresh", "--offline", "--sources", path, "--db", tmp_path / "p.duckdb"),
        4,
        "source 'gpu_quantacloud'",
        "field options",
        "options.price_per: Input should be 'gpu' or 'instance'",
    )
    assert not (tmp_path / "p.duckdb").exists()


def test_missing_field_names_the_entry_by_position_and_its_line(tmp_path: Path) -> None:
    path, text = sources_file(tmp_path, 'id = "aws_inf2"\n', "")
    entry = line_of(text, "[[sources]]", line_of(text, 'sample = "aws/inf1.html"'))
    refused(
        ratecard("refresh", "--offline", "--sources", path, "--db", tmp_path / "p.duckdb"),
        4,
        f"{path}:{entry}: source entry 3, field id: required, but missing",
    )


def test_bad_drift_default_names_the_key_once(tmp_path: Path) -> None:
    path, text = sources_file(tmp_path, 'on_row_drop = "quarantine"', 'on_row_drop = "ignore"')
    line = refused(
        ratecard("refresh", "--offline", "--sources", path, "--db", tmp_path / "p.duckdb"),
        4,
        f"{path}:{line_of(text, 'on_row_drop')}: top level, field drift.on_row_drop:",
    )
    assert "more problem" not in line, line  # not repeated for every source it is copied into


def test_missing_sources_file_is_a_user_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    refused(
        ratecard("refresh", "--offline", "--sources", missing, "--db", tmp_path / "p.duckdb"),
        4,
        f"{missing}: does not exist",
    )


# -- the database --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["refresh", "show", "reparse"])
def test_not_a_duckdb_file(tmp_path: Path, command: str) -> None:
    db = tmp_path / "notes.duckdb"
    db.write_text("id,price\ntrn1.2xlarge,1.34375\n")
    refused(ratecard(command, "--db", db), 5, f"{db}: not a DuckDB database file")
    assert db.read_text() == "id,price\ntrn1.2xlarge,1.34375\n"  # left as it was


def test_newer_duckdb_file(tmp_path: Path) -> None:
    db = newer_duckdb_file(tmp_path / "prices.duckdb", storage_version=1000)
    refused(
        ratecard("show", "--db", db),
        5,
        f"{db}: written by a newer DuckDB",
        "storage version 1000",
        f"DuckDB {duckdb.__version__}",
    )


@pytest.mark.parametrize("command", ["refresh", "show", "reparse"])
def test_database_locked_by_another_program(held_database: Path, command: str) -> None:
    line = refused(
        ratecard(command, "--db", held_database, "--wait", "0"),
        6,
        f"{held_database}: held by another process",
        "prices.snapshot.duckdb",
    )
    assert "PID" in line, line


@pytest.mark.parametrize("command", ["refresh", "show", "reparse"])
def test_database_path_is_a_directory(tmp_path: Path, command: str) -> None:
    db = tmp_path / "prices.duckdb"
    db.mkdir()
    refused(ratecard(command, "--db", db), 7, f"{db}:", "is a directory")


def test_database_under_a_file_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "warehouse"
    blocker.write_text("a file where the database directory should be\n")
    refused(
        ratecard("refresh", "--offline", "--db", blocker / "prices.duckdb"), 7, f"{blocker} is a file, not a directory"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through directory permissions")
def test_database_in_a_read_only_directory(tmp_path: Path) -> None:
    locked = tmp_path / "readonly"
    locked.mkdir(mode=0o555)
    refused(ratecard("refresh", "--offline", "--db", locked / "prices.duckdb"), 7, "not writable")


@pytest.mark.parametrize("command", ["show", "reparse"])
def test_missing_database_says_to_refresh_first(tmp_path: Path, command: str) -> None:
    db = tmp_path / "missing.duckdb"
    result = ratecard(command, "--db", db)
    refused(result, 1, f"{db}: does not exist yet")
    assert "ratecard refresh" in result.stderr
    assert not db.exists()


# -- --debug and bugs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["sources", "database"])
def test_debug_shows_the_traceback(tmp_path: Path, case: str) -> None:
    if case == "sources":
        path, _ = sources_file(tmp_path, 'id = "aws_inf1"', "id = aws_inf1")
        args: tuple[object, ...] = ("refresh", "--offline", "--sources", path, "--db", tmp_path / "p.duckdb")
        raised = "SourcesFileError"
    else:
        db = tmp_path / "notes.duckdb"
        db.write_text("not a database\n")
        args, raised = ("show", "--db", db), "NotADuckDBFile"
    result = ratecard("--debug", *args)
    assert result.returncode != 0
    assert "Traceback" in result.stderr and raised in result.stderr, result.stderr


def test_unexpected_error_is_reported_as_a_bug_in_one_line(tmp_path: Path) -> None:
    db = ratecard_database(tmp_path / "prices.duckdb")
    # A fault no user input can cause: print_headline itself breaks.
    code = (
        "import sys, pipelines.cli.show as show\n"
        "def broken(*args, **kwargs): raise KeyError('usd_per_instance_hour')\n"
        "show.print_headline = broken\n"
        "from pipelines.cli.app import app\nsys.argv[0] = 'ratecard'\napp()\n"
    )
    for debug in ([], ["--debug"]):
        result = subprocess.run(
            [sys.executable, "-c", code, *debug, "show", "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if debug:
            assert "Traceback" in result.stderr and "KeyError" in result.stderr, result.stderr
            continue
        assert result.returncode == 70, result.stderr
        assert "Traceback" not in result.stdout + result.stderr
        assert result.stderr.splitlines() == [
            "error: unexpected KeyError: 'usd_per_instance_hour'. This is a bug in ratecard: rerun the same "
            "command with --debug for the traceback, and report it"
        ]


def test_lake_maintenance_of_a_duckdb_file_says_it_needs_none(tmp_path: Path) -> None:
    line = refused(ratecard("lake", "maintain", "--db", tmp_path / "p.duckdb"), 2)
    assert line == f"error: --warehouse {tmp_path / 'p.duckdb'} is a DuckDB file: `lake maintain` keeps a DuckLake"
    assert not (tmp_path / "p.duckdb").exists()
