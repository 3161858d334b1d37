"""One refresh at a time per warehouse file: an advisory lock beside it (`prices.duckdb.lock`).

DuckDB itself allows one writing process per file; this lock makes a second refresh wait or be refused with
a clear message naming who holds it, instead of failing halfway on a file lock or interleaving with the first.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from warehouse.target import is_lake


class RefreshLocked(RuntimeError):
    pass


# Locks this thread already holds: the CLI holds the lock for a whole refresh and runs Dagster steps
# in-process, which take it again; flock on a second descriptor would wait for ourselves. Per thread, so that
# another thread of this process waits on flock like another process would, instead of walking in.
_held: dict[tuple[Path, int], int] = {}


def lock_path(db_path: Path | str) -> Path:
    path = Path(db_path)
    return path.with_name(path.name + ".lock")


@contextmanager
def exclusive_refresh(db_path: Path | str, *, wait_s: float = 0.0, poll_s: float = 0.1) -> Iterator[None]:
    """Hold the warehouse's refresh lock; wait up to `wait_s` for it, then raise RefreshLocked. A DuckLake needs
    none: its writers commit concurrently, and a conflicting commit is retried
    (warehouse.transactions.in_transaction)."""
    if is_lake(db_path):
        yield
        return
    path = lock_path(db_path).resolve()
    held = (path, threading.get_ident())
    if _held.get(held):
        _held[held] += 1
        try:
            yield
        finally:
            _held[held] -= 1
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    created = not path.exists()
    fd = locked_descriptor(path, db_path, wait_s, poll_s)
    try:
        holder_note(fd, path)
        _held[held] = 1
        try:
            yield
        except BaseException:
            if created:  # a refused or failed first command leaves no lock file behind (a foreign --db, say)
                path.unlink(missing_ok=True)
            raise
        finally:
            del _held[held]
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def holder_note(fd: int, path: Path) -> None:
    """Who holds the lock, for a refresh that waits on it; a failed write (a full disk) names the lock file, which
    a bare descriptor's error would not."""
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} since {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC\n".encode(), 0)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from exc


def locked_descriptor(path: Path, db_path: Path | str, wait_s: float, poll_s: float) -> int:
    """An open descriptor of the lock file, flock-ed. A lock file can be removed by the holder it belonged to
    (above), so the lock taken must still be the file at `path`, else it is taken again on the new one."""
    deadline = time.monotonic() + wait_s
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            take(fd, path, deadline, poll_s, db_path, wait_s)
            if same_file(fd, path):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def take(fd: int, path: Path, deadline: float, poll_s: float, db_path: Path | str, wait_s: float) -> None:
    """flock the descriptor, waiting until `deadline`; then RefreshLocked naming the holder."""
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
                raise RefreshLocked(
                    f"another refresh of {db_path} is running ({holder}); waited {wait_s:g} s for {path}"
                ) from None
            time.sleep(poll_s)


def same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False
