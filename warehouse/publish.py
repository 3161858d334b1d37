"""The read-only snapshot SQL clients use: `prices.snapshot.duckdb`, replaced atomically after each refresh.

DuckDB lets one process write a file or many read it, never both. So the pipeline writes its working file
and, once a refresh is done, copies it next to it and renames the copy over the snapshot. A client
that has the old snapshot open keeps reading that consistent version; the next connection sees the new one;
and no client can ever hold up, or see half of, a refresh.

The copy is written in a storage format pinned here (SNAPSHOT_STORAGE_VERSION), so that the clients people
actually have (the DuckDB 1.5 CLI, the Node API, DBeaver's JDBC driver, DuckDB-Wasm) open it whatever engine the
pipeline runs.
"""

from __future__ import annotations

import os
from pathlib import Path

from warehouse.db import connect
from warehouse.failpoints import failpoint
from warehouse.lake import current_snapshot
from warehouse.stops_deferred import stops_deferred
from warehouse.target import is_lake

# Storage number 64, which every 1.x reader since 1.1 reads, named explicitly so that the snapshot's format never
# follows the pipeline's engine upwards (DuckDB 2.0 wrote 65+ by default). DuckDB 1.0.0 refuses what 2.0 wrote under
# the older labels, so v1.1.0 is the oldest label that is true. Tested in tests/warehouse/test_snapshot_clients.py.
SNAPSHOT_STORAGE_VERSION = "v1.1.0"


def snapshot_path(db_path: Path | str) -> Path:
    path = Path(db_path)
    return path.with_name(f"{path.stem}.snapshot{path.suffix}")


def readable(location: Path | str) -> Path | str:
    """What readers open: a file's published snapshot (the working file before the first publish); a lake
    itself, since its readers see only committed snapshots and never block a writer."""
    if is_lake(location):
        return str(location)
    snapshot = snapshot_path(location)
    return snapshot if snapshot.exists() else Path(location)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_abandoned_copies(target: Path) -> list[Path]:
    """Staging copies (and WALs) left by a publish that was killed: their process is gone, so nothing renames them."""
    removed = []
    for staging in target.parent.glob(f".{target.name}.*.tmp*"):
        pid = staging.name.removeprefix(f".{target.name}.").split(".tmp")[0]
        if pid.isdigit() and not _alive(int(pid)):
            staging.unlink(missing_ok=True)
            removed.append(staging)
    return removed


def write_copy(db_path: Path, staging: Path) -> None:
    """Copy every table, view, macro and comment of the working file into `staging`, in the older format. A stop
    signal waits for the copy (warehouse.stops_deferred: DuckDB leaks a file's instance whose ATTACH or DETACH is
    interrupted, and every later opening of that file in the process hangs)."""
    with stops_deferred(), connect(db_path) as con:
        source = con.execute("SELECT current_database()").fetchone()
        assert source is not None
        staging_literal = str(staging).replace("'", "''")
        database = str(source[0]).replace('"', '""')
        con.execute(f"ATTACH '{staging_literal}' AS snapshot_copy (STORAGE_VERSION '{SNAPSHOT_STORAGE_VERSION}')")
        try:
            con.execute(f'COPY FROM DATABASE "{database}" TO snapshot_copy')  # bulk, table by table
            con.execute("CHECKPOINT snapshot_copy")  # everything in the file, nothing left in a WAL
        finally:
            con.execute("DETACH snapshot_copy")


def publish_snapshot(db_path: Path | str) -> Path | str:
    """Write a copy of the working file beside the snapshot, fsync it, and rename it into place. A lake needs no
    copy: its readers already see only commits; it names the lake's current snapshot, which a reader can pin."""
    if is_lake(db_path):
        return f"{db_path} at snapshot {current_snapshot(str(db_path))}"
    db_path = Path(db_path)
    target = snapshot_path(db_path)
    remove_abandoned_copies(target)
    staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    staging.unlink(missing_ok=True)  # ATTACH would open a leftover file rather than start a new one
    try:
        write_copy(db_path, staging)
        failpoint("publish")  # crash tests stop here: the copy made, not yet renamed into place
        _fsync(staging)
        os.replace(staging, target)  # atomic on POSIX: readers see the old file or the new, never a mix
        _fsync(target.parent)
    finally:
        staging.unlink(missing_ok=True)
        staging.with_name(f"{staging.name}.wal").unlink(missing_ok=True)
    return target
