"""The read-only snapshot SQL clients use: `prices.snapshot.duckdb`, replaced atomically after each refresh.

DuckDB lets one process write a file or many read it, never both. So the pipeline writes its working file
and, once a refresh is done, copies a checkpointed image next to it and renames it over the snapshot. A client
that has the old snapshot open keeps reading that consistent version; the next connection sees the new one;
and no client can ever hold up, or see half of, a refresh.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from warehouse.db import connect
from warehouse.failpoints import failpoint


def snapshot_path(db_path: Path | str) -> Path:
    path = Path(db_path)
    return path.with_name(f"{path.stem}.snapshot{path.suffix}")


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
    """Staging copies left by a publish that was killed: their process is gone, so nothing will rename them."""
    removed = []
    for staging in target.parent.glob(f".{target.name}.*.tmp"):
        pid = staging.name.removeprefix(f".{target.name}.").removesuffix(".tmp")
        if pid.isdigit() and not _alive(int(pid)):
            staging.unlink(missing_ok=True)
            removed.append(staging)
    return removed


def publish_snapshot(db_path: Path | str) -> Path:
    """Checkpoint the working file, copy it beside the snapshot, fsync, and rename it into place."""
    db_path = Path(db_path)
    with connect(db_path) as con:
        con.execute("CHECKPOINT")  # everything in the main file, nothing left in the WAL
    target = snapshot_path(db_path)
    remove_abandoned_copies(target)
    staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        shutil.copyfile(db_path, staging)
        failpoint("publish")  # crash tests stop here: the copy made, not yet renamed into place
        _fsync(staging)
        os.replace(staging, target)  # atomic on POSIX: readers see the old file or the new, never a mix
        _fsync(target.parent)
    finally:
        staging.unlink(missing_ok=True)
    return target
