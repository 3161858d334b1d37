"""Faults of the machine, not of ratecard: a full disk, a read-only or forbidden target, a damaged database file.

Python reports them as OSError (errno, filename) and DuckDB as one of its errors with the file in its message;
`machine_fault` names either, with its path, so the CLI reports it with an exit code and a hint, never as a bug.
Light on purpose (no DuckDB import): it reads DuckDB's errors by their module and message.
"""

from __future__ import annotations

import errno
import re
from pathlib import Path

from warehouse.files import DamagedDuckDBFile

# DuckDB names the file it failed on in quotes: 'Could not write file "/x/prices.duckdb": No space left on device'.
DUCKDB_FILE = re.compile(r'file "([^"]+)"')
DUCKDB_WAL = re.compile(r'replaying WAL file "([^"]+)"')
READ_ONLY = "cannot be written: read-only file system"
NOT_WRITABLE = {errno.EROFS: READ_ONLY, errno.EACCES: "permission denied", errno.EPERM: "operation not permitted"}
DUCKDB_NOT_WRITABLE = {"Read-only file system": READ_ONLY, "Permission denied": "permission denied"}


class DiskFull(Exception):
    """No space left on the device holding `path`: a write there failed (what was committed before it stays)."""

    def __init__(self, path: Path | str | None, detail: str) -> None:
        super().__init__(f"{path or 'a file'}: the disk is full ({detail})")
        self.path = path


class PathNotWritable(Exception):
    """A path the command writes is on a read-only file system, or not permitted to this user."""

    def __init__(self, path: Path | str | None, reason: str) -> None:
        super().__init__(f"{path or 'a file'}: {reason}")
        self.path = path


def from_duckdb(exc: BaseException) -> bool:
    return type(exc).__module__.lstrip("_") == "duckdb"


def machine_fault(exc: BaseException, where: Path | str | None = None) -> Exception | None:
    """The fault of the machine `exc` stands for, naming its path (else `where`); None when it is none of them."""
    if isinstance(exc, DiskFull | PathNotWritable | DamagedDuckDBFile):
        return exc
    if isinstance(exc, OSError) and exc.errno is not None:
        path = exc.filename or where
        if exc.errno == errno.ENOSPC:
            return DiskFull(path, exc.strerror or "no space left on device")
        if exc.errno in NOT_WRITABLE:
            return PathNotWritable(path, NOT_WRITABLE[exc.errno])
        return None
    if not from_duckdb(exc):
        return None
    message = str(exc)
    named = DUCKDB_FILE.search(message)
    path = named[1] if named else where
    if "No space left on device" in message:
        return DiskFull(path, "no space left on device")
    if reason := next((r for text, r in DUCKDB_NOT_WRITABLE.items() if text in message), None):
        return PathNotWritable(path, reason)
    if "Could not read enough bytes" in message:
        return DamagedDuckDBFile(path or "the database", "damaged or cut short: DuckDB could not read it whole")
    if wal := DUCKDB_WAL.search(message):
        database = wal[1].removesuffix(".wal")
        return DamagedDuckDBFile(database, f"its write-ahead log {wal[1]} cannot be replayed (DuckDB failed on it)")
    return None
