"""Content-addressed archive of every fetched body, so any past fetch can be re-parsed later.

A body is stored under its SHA-256, compressed with zstd (`<sha256>.zst`). Archives written before zstd hold
gzip (`<sha256>.gz`); those are read as they are, never rewritten. DuckDB reads either straight from the archive.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, cast

import pyarrow as pa

# zstd, level 1 for a body streamed to a file (a price-list offer file, ~250-420 MB): 1.3 GB/s on one core here,
# where gzip level 3 managed 0.3 GB/s (1.2 s for a 420 MB file) and made a file 30% bigger. A page is small:
# level 9 costs nothing that shows and keeps years of daily pages small.
STORED = ".zst"
OLDER = (".gz",)
PAGE_LEVEL = 9
CHUNK = 1 << 20


class ArchiveError(Exception):
    pass


@contextmanager
def open_body(path: Path) -> Iterator[BinaryIO]:
    """A body kept in a file, as bytes: plain, or compressed by its suffix (.zst, .gz)."""
    if path.suffix == ".zst":
        with pa.input_stream(str(path), compression="zstd") as stream:
            yield cast(BinaryIO, stream)
    elif path.suffix == ".gz":
        with gzip.open(path, "rb") as gz:
            yield cast(BinaryIO, gz)
    else:
        with open(path, "rb") as plain:
            yield plain


# What a damaged compressed file raises while it is read: gzip's errors, and Arrow's for zstd.
UNREADABLE = (OSError, EOFError, pa.ArrowException)


def body_digest(path: Path) -> str:
    """The SHA-256 of the body a file holds (decompressed), read in chunks."""
    digest = hashlib.sha256()
    with open_body(path) as body:
        while chunk := body.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class Archive:
    def __init__(self, root: Path | str):
        self.root = Path(root)

    def path_for(self, sha256: str) -> Path:
        """Where the body is stored: its zstd file, or an older archive's gzip one; for a new body, where it goes."""
        stem = self.root / sha256[:2] / sha256
        for suffix in OLDER:
            older = stem.with_suffix(suffix)
            if older.exists() and not stem.with_suffix(STORED).exists():
                return older
        return stem.with_suffix(STORED)

    def put(self, body: bytes) -> str:
        """Store a body under its SHA-256; storing the same body twice writes once."""
        packed = pa.Codec("zstd", compression_level=PAGE_LEVEL).compress(body, asbytes=True)
        return self._store(hashlib.sha256(body).hexdigest(), lambda raw: raw.write(packed))

    def put_file(self, path: Path, sha256: str) -> str:
        """Store a body kept in a file (a price-list offer file) under its SHA-256, streamed: never whole in memory.
        A .zst file (as the fetcher spools a big body) is copied as it is; any other is compressed."""

        def copy(raw: BinaryIO) -> None:
            with open(path, "rb") as body:
                shutil.copyfileobj(body, raw, CHUNK)

        def compress(raw: BinaryIO) -> None:
            with pa.CompressedOutputStream(raw, "zstd") as packed, open(path, "rb") as body:
                shutil.copyfileobj(body, packed, CHUNK)

        return self._store(sha256, copy if path.suffix == STORED else compress)

    def _store(self, sha256: str, write: Callable[[BinaryIO], object]) -> str:
        target = self.path_for(sha256)
        if target.exists():
            return sha256
        target.parent.mkdir(parents=True, exist_ok=True)
        # Write then rename: a crash never leaves a half-written file under the final name.
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as raw:
                write(raw)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return sha256

    def verified_path(self, sha256: str) -> Path:
        """The archived file itself (compressed), its body's hash checked by streaming: for bodies too big to hold."""
        path = self._existing(sha256)
        try:
            digest = body_digest(path)
        except UNREADABLE as exc:
            raise ArchiveError(f"archived body {sha256} is unreadable: {exc}") from exc
        if digest != sha256:
            raise ArchiveError(f"archived body {sha256} is corrupt (hash mismatch)")
        return path

    def get(self, sha256: str) -> bytes:
        path = self._existing(sha256)
        try:
            with open_body(path) as stored:
                body = stored.read()
        except UNREADABLE as exc:
            raise ArchiveError(f"archived body {sha256} is unreadable: {exc}") from exc
        if hashlib.sha256(body).hexdigest() != sha256:
            raise ArchiveError(f"archived body {sha256} is corrupt (hash mismatch)")
        return body

    def _existing(self, sha256: str) -> Path:
        path = self.path_for(sha256)
        if not path.exists():
            raise ArchiveError(f"no archived body {sha256}")
        return path
