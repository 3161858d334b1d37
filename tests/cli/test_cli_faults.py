"""Faults of the machine are errors with names, never a bug (exit 70): a damaged database file (exit 5), a
read-only target and a full disk (exit 7), each naming its path, with a hint.

The read-only and full file systems are real: a tmpfs or a read-only bind mount, made in a mount namespace of the
command's own (`unshare --mount`), so nothing stays mounted after it, whatever happens to the test. The CLI sweep
(test_cli_sweep.py) also hands a damaged file to every path parameter of every command.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import PILOT_SAMPLES
from warehouse.sql_files import HOUSE, sql

RATECARD = [sys.executable, "-m", "ratecard"]
EXAMPLE = PILOT_SAMPLES / "example.csv"
TWO = ["--source", "fx_ecb", "--source", "aws_trn1"]


def can_mount() -> bool:
    if shutil.which("unshare") is None:
        return False
    mount = ["unshare", "--mount", "mount", "-t", "tmpfs", "tmpfs", "/mnt"]
    done = subprocess.run(mount, capture_output=True, check=False)
    return done.returncode == 0


needs_mounts = pytest.mark.skipif(not can_mount(), reason="mounting needs root (CAP_SYS_ADMIN) and unshare")


def ratecard(*args: str | Path) -> str:
    return shlex.join([*RATECARD, *map(str, args)])


def in_own_mounts(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`script` (sh) in a mount namespace of its own; its temporary folder is `tmp_path`/tmp."""
    (tmp_path / "tmp").mkdir()
    env_tmp = f"export TMPDIR={shlex.quote(str(tmp_path / 'tmp'))} COLUMNS=200\n"
    return subprocess.run(
        ["unshare", "--mount", "sh", "-ec", env_tmp + script], capture_output=True, text=True, timeout=300, check=False
    )


def expect_named(done: subprocess.CompletedProcess[str], code: int, named: str) -> None:
    both = done.stdout + done.stderr
    assert done.returncode == code, (done.returncode, both[-3000:])
    assert "bug" not in both.lower() and "Traceback" not in both and "Stack Trace" not in both, both[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and named in errors[0], done.stderr
    assert re.search(r"^hint: \S", done.stderr, re.MULTILINE), done.stderr


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """A usable warehouse (schema applied and checkpointed, snapshot published), for copies to damage."""
    from warehouse.db import connect
    from warehouse.publish import publish_snapshot

    db = tmp_path_factory.mktemp("whole") / "prices.duckdb"
    with connect(db):
        pass
    publish_snapshot(db)
    return db


def cut_short(whole: Path, folder: Path) -> Path:
    db = folder / "prices.duckdb"
    db.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    return db


def unreplayable_wal(whole: Path, folder: Path) -> Path:
    """A file whose WAL DuckDB 1.5.5 cannot replay: the first schema file applied statement by statement (its
    ALTERs of a table whose default calls nextval), and the process gone before any checkpoint."""
    db = folder / "prices.duckdb"
    code = "import duckdb, os, sys; con = duckdb.connect(sys.argv[1]); con.execute(sys.argv[2]); os._exit(0)"
    subprocess.run([sys.executable, "-c", code, str(db), sql(HOUSE.file("tables"))], check=True)
    assert db.with_name(db.name + ".wal").exists()
    return db


@pytest.mark.parametrize(
    ("damage", "command"),
    [
        (cut_short, ["refresh", "--offline", *TWO]),  # the sweep hands a cut file to every command, in-process
        (unreplayable_wal, ["show"]),
        (unreplayable_wal, ["refresh", "--offline", *TWO]),
        (unreplayable_wal, ["export", "--out"]),
        (unreplayable_wal, ["pilot", "import", str(EXAMPLE)]),
    ],
)
def test_a_damaged_database_is_named_with_exit_5(whole, tmp_path, damage, command):
    db = damage(whole, tmp_path)
    out = [str(tmp_path / "exported")] if command[-1] == "--out" else []
    done = subprocess.run([*RATECARD, *command, *out, "--db", str(db)], capture_output=True, text=True, check=False)
    expect_named(done, 5, f"{db}: ")
    assert "snapshot" in done.stderr  # the hint says where the last published state is


@needs_mounts
@pytest.mark.parametrize("command", ["export", "dashboard"])
def test_out_on_a_read_only_file_system_is_exit_7_naming_the_path(whole, tmp_path, command):
    out = tmp_path / "readonly"
    out.mkdir()
    script = f"mount -t tmpfs -o ro,size=1m tmpfs {out}\n{ratecard(command, '--out', out / 'new', '--db', whole)}"
    expect_named(in_own_mounts(script, tmp_path), 7, f"{out}/")


@needs_mounts
def test_a_pilot_import_into_a_read_only_folder_is_exit_7_naming_the_lock_file(whole, tmp_path):
    folder = tmp_path / "warehouse"
    shutil.copytree(whole.parent, folder)
    db = folder / whole.name
    read_only = f"mount --bind {folder} {folder}\nmount -o remount,ro,bind {folder}\n"
    script = read_only + ratecard("pilot", "import", EXAMPLE, "--db", db)
    expect_named(in_own_mounts(script, tmp_path), 7, f"{db}.lock: cannot be written: read-only file system")


def refresh_on_a_full_disk(
    whole: Path, tmp_path: Path, *, room_kb: int
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """A refresh of a copy of the warehouse on a 16 MB tmpfs filled by a file but for `room_kb`: after a first
    refresh landed, when there is room to leave (a disk full to the last byte fails before anything lands)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    db = disk / whole.name
    refresh = ratecard("refresh", "--offline", "--db", db, *TWO)
    script = f"""
mount -t tmpfs -o size=16m tmpfs {disk}
cp {whole} {db}
{f"{refresh} > /dev/null" if room_kb else ""}
free_kb=$(df -k --output=avail {disk} | tail -1)
dd if=/dev/zero of={disk}/filler bs=1k count=$((free_kb - {room_kb})) 2>/dev/null || true
{refresh}
"""
    return in_own_mounts(script, tmp_path), db


@needs_mounts
def test_a_disk_that_fills_during_a_refresh_is_named_with_the_summary_and_the_log(whole, tmp_path):
    """Room for the small writes of a refresh (the lock, fetch_log rows), not for the snapshot it publishes."""
    done, db = refresh_on_a_full_disk(whole, tmp_path, room_kb=512)
    expect_named(done, 7, f"{db.parent}/.prices.snapshot.duckdb")
    assert "the disk is full" in done.stderr
    assert re.search(r"│ fx_ecb\s+│ unchanged", done.stdout) and "snapshot not published" in done.stdout, done.stdout
    log = re.search(r"details: (\S+\.log)", done.stdout)
    assert log and Path(log[1]).parent == tmp_path / "tmp" / "ratecard-logs", done.stdout  # the disk had no room
    assert "the disk is full" in Path(log[1]).read_text()


@needs_mounts
def test_a_disk_already_full_names_the_first_file_it_could_not_write(whole, tmp_path):
    done, db = refresh_on_a_full_disk(whole, tmp_path, room_kb=0)
    expect_named(done, 7, f"{db}.lock: the disk is full")
