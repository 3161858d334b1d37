"""A host that accepts connections on 127.0.0.1 and never answers: a provider's load balancer that hangs.
Used by bench/hanging_host.py and tests/fetch/test_hanging_host.py.

with SilentHost() as host:
    fetcher.fetch("src", host.url("/page"))  # connects, then waits for its read timeout
    assert host.accepted == 1
"""

from __future__ import annotations

import socket
import threading


class SilentHost:
    """Accepts every connection, reads nothing, writes nothing, and holds it open until the context ends."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=128)
        self._listener.settimeout(0.05)  # so the accept loop sees the stop
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.accepted = 0  # connections accepted so far
        self.base_url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._accept, name="SilentHost", daemon=True)

    def __enter__(self) -> SilentHost:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        with self._lock:
            for conn in self._held:
                conn.close()
        self._listener.close()

    def url(self, path: str) -> str:
        return self.base_url + path

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            with self._lock:
                self._held.append(conn)
                self.accepted += 1
