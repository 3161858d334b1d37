"""Content-addressed archive of every fetched body (gzip), so any past fetch can be re-parsed later."""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path


class ArchiveError(Exception):
    pass


# A body streamed to a file is big (a price-list offer file: ~250-420 MB). zlib level 3 compresses it at about
# 290 MB/s, level 9 (GzipFile's default, kept for pages) at about 70 MB/s: 6 s for one 420 MB file.
FILE_LEVEL = 3


class Archive:
    def __init__(self, root: Path | str):
        self.root = Path(root)

    def path_for(self, sha256: str) -> Path:
        return self.root / sha256[:2] / f"{sha256}.gz"

    def put(self, body: bytes) -> str:
        """Store a body under its SHA-256; storing the same body twice writes once."""
        return self._store(hashlib.sha256(body).hexdigest(), lambda gz: gz.write(body))

    def put_file(self, path: Path, sha256: str) -> str:
        """Store a body kept in a file (a price-list offer file) under its SHA-256, streamed: never whole in memory."""

        def copy(gz: gzip.GzipFile) -> None:
            with open(path, "rb") as body:
                shutil.copyfileobj(body, gz, 1 << 20)

        return self._store(sha256, copy, level=FILE_LEVEL)

    def _store(self, sha256: str, write: Callable[[gzip.GzipFile], object], level: int = 9) -> str:
        target = self.path_for(sha256)
        if target.exists():
            return sha256
        target.parent.mkdir(parents=True, exist_ok=True)
        # Write then rename: a crash never leaves a half-written file under the final name.
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=level) as gz:
                write(gz)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return sha256

    def verified_path(self, sha256: str) -> Path:
        """The archived file itself (gzip), its body's hash checked by streaming: for bodies too big to hold."""
        path = self.path_for(sha256)
        if not path.exists():
            raise ArchiveError(f"no archived body {sha256}")
        digest = hashlib.sha256()
        with gzip.open(path, "rb") as body:
            while chunk := body.read(1 << 20):
                digest.update(chunk)
        if digest.hexdigest() != sha256:
            raise ArchiveError(f"archived body {sha256} is corrupt (hash mismatch)")
        return path

    def get(self, sha256: str) -> bytes:
        path = self.path_for(sha256)
        if not path.exists():
            raise ArchiveError(f"no archived body {sha256}")
        body = gzip.decompress(path.read_bytes())
        if hashlib.sha256(body).hexdigest() != sha256:
            raise ArchiveError(f"archived body {sha256} is corrupt (hash mismatch)")
        return body
