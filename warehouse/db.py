"""Opening the warehouse: a DuckDB file or a lake, in UTC, its schema current (warehouse.schema)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from warehouse.failpoints import failpoint
from warehouse.files import (
    NewerDuckDBFile,
    NotADuckDBFile,
    WarehouseBusy,
    WarehouseError,
    WarehouseMissing,
    WarehouseUnwritable,
)
from warehouse.lake import LAKE, file_id_sequences, open_lake
from warehouse.schema import STAMP_APPLIED_NOW, applied_schema, ensure_schema, schema_sha256
from warehouse.stops_deferred import stops_deferred
from warehouse.target import is_lake
from warehouse.templates import copy_template, forget_template, keep_as_template, template_path
from warehouse.transactions import on_lake

# DuckDB 2.0 says "storage version number N, but we can only read storage versions between A and B";
# 1.5 says "version number N, but we can only read versions between A and B".
NEWER_STORAGE = re.compile(
    r"version number (\d+), "
    r"but we can only read (?:storage )?versions between (\d+) and (\d+)"
)
LOCK_HOLDER = re.compile(r"Conflicting lock is held in (.+?) \(PID (\d+)\)")
UNUSABLE_PATH = (
    "Is a directory",
    "Not a directory",
    "Permission denied",
    "Read-only file system",
    "No such file or directory",
)


def warehouse_error(path: Path, exc: duckdb.Error, wait_s: float) -> WarehouseError | None:
    """What DuckDB's refusal to open `path` means for its user; None for anything else (a bug, not a user error)."""
    message = str(exc)
    if "Could not set lock" in message:
        held = LOCK_HOLDER.search(message)
        holder = f"PID {held[2]}, {held[1]}" if held else "another process"
        return WarehouseBusy(
            path,
            f"held by another process ({holder}) for {wait_s:g} s; SQL clients should open "
            f"{path.stem}.snapshot{path.suffix} instead of the working file",
        )
    if newer := NEWER_STORAGE.search(message):
        return NewerDuckDBFile(
            path,
            f"written by a newer DuckDB (storage version {newer[1]}; DuckDB "
            f"{duckdb.__version__} reads versions {newer[2]} to {newer[3]})",
        )
    if "not a valid DuckDB database file" in message:
        return NotADuckDBFile(path, "not a DuckDB database file")
    if "Corrupt database file" in message:
        return NotADuckDBFile(path, f"damaged DuckDB file ({message.splitlines()[0]})")
    if "database does not exist" in message:
        return WarehouseMissing(path, "does not exist")
    reason = next((r for r in UNUSABLE_PATH if r in message), None)
    return WarehouseUnwritable(path, f"cannot hold a database file: {reason.lower()}") if reason else None


def writable_location(path: Path | str) -> None:
    """Create the file's directory, or say why no database file can be written at `path` (a lake: nothing to do)."""
    if is_lake(path):
        return
    path = Path(path)
    if path.is_dir():
        raise WarehouseUnwritable(path, "is a directory, not a database file")
    blocking = next((p for p in path.parents if p.exists()), None)
    if blocking is not None and not blocking.is_dir():
        raise WarehouseUnwritable(path, f"{blocking} is a file, not a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WarehouseUnwritable(path, f"its directory cannot be created: {exc.strerror or exc}") from exc
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise WarehouseUnwritable(path, "not writable: permission denied")


# A new working file in DuckDB 1.5's own storage format, not its default (v0.10.2, for old readers): measured
# 1.5-2x faster to insert into and commit (bench.engines). Clients read the snapshot, whose format publish.py pins.
FILE_CONFIG: dict[str, str | bool | int | float | list[str]] = {"storage_compatibility_version": "latest"}


def create_file(path: Path) -> None:
    """A new warehouse file, made whole beside `path` (schema applied, checkpointed, closed) and only then linked
    into place: a stop at any moment leaves no file or a whole one, never one whose schema is only in a WAL, nor
    a file with no tables. Another process linking its own first wins: both hold the same empty schema. The
    whole file is a copy of the cached empty one when that opens with this schema (warehouse.templates)."""
    building = path.with_name(f".{path.name}.new-{os.getpid()}")
    wanted = schema_sha256()
    template = template_path(wanted, FILE_CONFIG)
    try:
        if copy_template(template, building):
            failpoint("template-copied")  # stop tests signal here: a copy beside the file, not yet checked
            if not _is_whole_template(building, wanted):
                forget_template(template)
                _remove_with_wal(building)
        if not building.exists():
            _apply_schema_to_new_file(building)
            keep_as_template(building, template)
        try:
            os.link(building, path)
        except FileExistsError:
            pass
        except OSError:  # a filesystem without hard links: a rename, which no other creator races on a desktop
            if not path.exists():
                os.replace(building, path)
    finally:
        _remove_with_wal(building)


def _remove_with_wal(file: Path) -> None:
    for leftover in (file, file.with_name(file.name + ".wal")):
        leftover.unlink(missing_ok=True)


def _apply_schema_to_new_file(building: Path) -> None:
    # Only a file being created takes the config: DuckDB refuses a second connection to an open file with other
    # settings than the first (a user's plain duckdb.connect in the same process, say).
    con = duckdb.connect(str(building), config=FILE_CONFIG)
    try:
        con.execute(SESSION_TIME_ZONE)
        ensure_schema(con)
    finally:
        con.close()


def _is_whole_template(copy: Path, wanted: str) -> bool:
    """Whether the copied template opens and holds exactly the schema `wanted`; its applied_at is then now."""
    try:
        con = duckdb.connect(str(copy))
    except duckdb.Error:
        return False
    try:
        if applied_schema(con) != [(wanted,)]:
            return False
        con.execute(SESSION_TIME_ZONE)
        con.execute(STAMP_APPLIED_NOW)
        con.execute("CHECKPOINT")
        return True
    except duckdb.Error:
        return False
    finally:
        con.close()


def _opened_file(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    """The file open (made first when new) and ready for ratecard's sessions, or closed again on any failure."""
    if not read_only and not path.exists():
        create_file(path)
    con = duckdb.connect(str(path), read_only=read_only)
    try:
        _prepared(con, lake=False, read_only=read_only)
    except BaseException:
        con.close()
        raise
    return con


def _prepared(con: duckdb.DuckDBPyConnection, *, lake: bool, read_only: bool) -> None:
    con.execute(SESSION_TIME_ZONE)
    if not read_only:
        ensure_schema(con, lake=lake)
        if not lake:
            file_id_sequences(con)


# ratecard's own sessions work in UTC whatever the machine's zone, so every datetime they read back is in UTC (what
# its displays print anyway). It is also quicker: DuckDB 1.5.5's Python client makes a datetime of a TIMESTAMPTZ
# through pytz's UTC in two thirds of the time it takes through a zone file such as Etc/UTC. Per connection.
SESSION_TIME_ZONE = "SET TimeZone = 'UTC'"


@contextmanager
def connect(path: Path | str, *, read_only: bool = False, wait_s: float = 30.0) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection that is closed on every exit path, so the file lock never outlives a failure.

    `path` is a DuckDB file, or a `ducklake:postgres:<conninfo>` lake (warehouse.target). A file is opened, made
    and closed with stops held back (warehouse.stops_deferred): DuckDB 1.5.5 leaks a file's instance when a stop
    interrupts its opening or closing, and every later opening of that file in the process then spins forever."""
    con: duckdb.DuckDBPyConnection | None = None
    try:
        if is_lake(path):
            con = open_lake(str(path), read_only=read_only)
            _prepared(con, lake=True, read_only=read_only)
        else:
            path = Path(path)
            if not read_only:
                writable_location(path)
            deadline = time.monotonic() + wait_s
            while con is None:
                try:
                    with stops_deferred():  # a stop held back is raised as this ends, with `con` set: closed below
                        con = _opened_file(path, read_only)
                except duckdb.Error as exc:
                    _wait_while_busy(path, exc, wait_s, deadline)
        yield con
    finally:
        if con is not None:
            with stops_deferred():
                con.close()


def _wait_while_busy(path: Path, exc: duckdb.Error, wait_s: float, deadline: float) -> None:
    """Wait a moment while another process holds the file's lock (a client left open), until `deadline`; any
    other refusal is raised as what it means for the user (warehouse_error), or as it is when it is a bug."""
    error = warehouse_error(path, exc, wait_s)
    if isinstance(error, WarehouseBusy) and time.monotonic() < deadline:
        time.sleep(0.2)
        return
    if error is None:
        raise exc
    raise error from exc


def cursor(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """A cursor (for another thread) that reads the same catalog: `USE` and the time zone are per connection, so
    a lake's cursor is pointed at the lake again, and every cursor set to UTC."""
    other = con.cursor()
    other.execute(SESSION_TIME_ZONE)
    if on_lake(con):
        other.execute(f"USE {LAKE}")
    return other
