"""A big body streamed to a file as it arrives: hashed, counted and zstd-compressed on the way.

zstd is the archive's format, so archiving the file is a copy of a few MB and DuckDB reads it as it is: a 420 MB
offer file is never written out plain, read back to be hashed, or read again to be compressed. The download
thread hashes (hashlib releases the GIL) while a thread of the spool's own compresses (so does Arrow): on two
cores the two overlap instead of adding up.
"""

from __future__ import annotations

import contextlib
import hashlib
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa

# A network read is 64 KB; the compressor is handed 1 MB at a time, so the two threads trade the GIL 16 times
# less often. Batches waiting for it: enough to ride out a slow moment, little memory.
BATCH_BYTES = 1 << 20
QUEUED_BATCHES = 8


class SpoolFile:
    """The writing end: `write` each chunk as it arrives, then `close` (which waits for the compressor)."""

    def __init__(self, out: BinaryIO):
        self.digest = hashlib.sha256()
        self.size = 0
        self._packed = pa.CompressedOutputStream(out, "zstd")
        self._batch = bytearray()
        self._chunks: queue.Queue[bytes | None] = queue.Queue(maxsize=QUEUED_BATCHES)
        self._failure: BaseException | None = None
        self._compressor = threading.Thread(target=self._compress, name="ratecard-spool", daemon=True)
        self._compressor.start()

    def _compress(self) -> None:
        # After a failure (a full disk) it keeps taking chunks, so the download is never blocked on a full queue.
        while (chunk := self._chunks.get()) is not None:
            if self._failure is None:
                try:
                    self._packed.write(chunk)
                except BaseException as exc:
                    self._failure = exc

    def write(self, chunk: bytes) -> None:
        if self._failure is not None:
            raise self._failure
        self.digest.update(chunk)
        self.size += len(chunk)
        self._batch += chunk
        if len(self._batch) >= BATCH_BYTES:
            self._chunks.put(bytes(self._batch))
            self._batch.clear()

    def close(self) -> None:
        """Wait for the compressor and end the zstd stream; raises what the compression met, if anything."""
        if self._batch:
            self._chunks.put(bytes(self._batch))
        self._chunks.put(None)
        self._compressor.join()
        try:
            self._packed.close()
        except BaseException as exc:
            self._failure = self._failure or exc
        if self._failure is not None:
            raise self._failure


@contextmanager
def spooling(path: Path | None) -> Iterator[SpoolFile | None]:
    """A SpoolFile writing to `path` (a new file each attempt), complete when the block ends; None without a path.
    When the block raises, the spool is closed quietly: the block's own error is the one that counts."""
    if path is None:
        yield None
        return
    with open(path, "wb") as out:
        spool = SpoolFile(out)
        try:
            yield spool
        except BaseException:
            with contextlib.suppress(BaseException):
                spool.close()
            raise
        spool.close()
