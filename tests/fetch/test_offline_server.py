"""The bundled-sample server: a client that goes away mid-answer ends its connection quietly."""

from __future__ import annotations

import socket
import struct
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from pipelines.fetch.offline import samples_named, serve_directory


def _handler_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if "process_request" in t.name]


def _reset_mid_answer(base_url: str, path: str) -> None:
    """Ask for a file, read a little of it, then reset the connection (as a stopped refresh's pool does)."""
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port)) as sock:
        sock.sendall(f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".encode())
        assert sock.recv(1024).startswith(b"HTTP/1.0 200")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_a_client_resetting_mid_answer_leaves_no_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Large enough that the kernel's socket buffers fill and sendfile is still writing when the reset arrives.
    big = tmp_path / "offer.csv"
    with big.open("wb") as f:
        f.truncate(32 * 1024 * 1024)
    with serve_directory(tmp_path) as base_url:
        for _ in range(3):
            _reset_mid_answer(base_url, "/offer.csv")
        deadline = time.monotonic() + 30
        while _handler_threads() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _handler_threads(), "the server's handlers did not finish after their clients went away"
        # The server still answers the next client.
        assert httpx.get(f"{base_url}/missing.txt").status_code == 404
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "Error" not in err


def test_a_sentence_citing_offline_pages_names_their_samples():
    text = "9.2 TB printed at http://127.0.0.1:33775/aws/trn3.html vs 64 chips at http://127.0.0.1:5/aws/trn2.html."
    assert samples_named(text) == (
        "9.2 TB printed at pipelines/samples/aws/trn3.html (sample) "
        "vs 64 chips at pipelines/samples/aws/trn2.html (sample)."
    )
