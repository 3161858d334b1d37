"""The spool a big body streams into: what comes out is the body, hashed and counted as it went in, and a
compressor that fails (a full disk) is raised to the download instead of blocking it."""

from __future__ import annotations

import hashlib
import io
import os
import threading

import pytest

from pipelines.fetch.archive import open_body
from pipelines.fetch.spool import BATCH_BYTES, QUEUED_BATCHES, SpoolFile, spooling


@pytest.mark.parametrize("size", [0, 1, BATCH_BYTES - 1, BATCH_BYTES, 2 * BATCH_BYTES + 12_345])
def test_a_body_comes_back_whole_with_its_hash_and_size(tmp_path, size):
    body = os.urandom(size // 2) * 2 + os.urandom(size % 2)  # half repeated: compressible, never trivially
    path = tmp_path / "body.zst"
    with spooling(path) as spool:
        assert spool is not None
        for start in range(0, len(body), 65_536):
            spool.write(body[start : start + 65_536])
    with open_body(path) as read:
        assert read.read() == body
    assert (spool.size, spool.digest.hexdigest()) == (len(body), hashlib.sha256(body).hexdigest())


class FullDisk(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, data) -> int:  # type: ignore[no-untyped-def, override]
        raise OSError(28, "No space left on device")


def test_a_failing_compressor_is_raised_and_never_blocks_the_download():
    spool = SpoolFile(FullDisk())
    finished = threading.Event()
    failures: list[BaseException] = []

    def download() -> None:
        try:  # far more batches than the queue holds: a stalled compressor would block here forever
            for _ in range(4 * QUEUED_BATCHES * BATCH_BYTES // 65_536):
                spool.write(os.urandom(65_536))  # incompressible: the compressor writes (and fails) early
            spool.close()
        except OSError as exc:
            failures.append(exc)
        finished.set()

    threading.Thread(target=download, daemon=True).start()
    assert finished.wait(30), "the download blocked on a compressor that had failed"
    assert len(failures) == 1 and "No space left" in str(failures[0])


def test_an_error_in_the_block_is_the_one_raised(tmp_path):
    def cut_short() -> None:
        with spooling(tmp_path / "b.zst") as spool:
            assert spool is not None
            spool.write(b"partial")
            raise ValueError("the body's own error")

    with pytest.raises(ValueError, match="the body's own error"):
        cut_short()


def test_no_path_no_spool():
    with spooling(None) as spool:
        assert spool is None
