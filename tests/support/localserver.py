"""A scriptable HTTP server on 127.0.0.1 for tests that need real sockets, not mocks.

with LocalServer() as server:
    server.set("/page", Reply(status=503), Reply(body=b"<html>ok</html>"))
    fetcher.fetch("src", server.url("/page"))
    assert server.hits("/page") == 2
"""

from __future__ import annotations

import gzip
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

CHUNK_SIZE = 16 * 1024


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/html; charset=utf-8"
    delay_s: float = 0.0  # sleep before sending headers (to trigger read timeouts)
    chunks_delay_s: float = 0.0  # sleep between body chunks
    truncate_to: int | None = None  # announce the full Content-Length, send only this many bytes, close
    gzip: bool = False  # gzip-encode the body and set Content-Encoding
    reset_after: int | None = None  # send this many body bytes, then reset the connection (RST, not FIN)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True  # a handler still sleeping (delay_s) must not block shutdown

    def handle_error(self, request: object, client_address: object) -> None:
        # Clients hanging up early (timeouts, size caps) are part of the tests, not server errors.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LocalServer:
    """ThreadingHTTPServer in a daemon thread. Paths not set answer 404."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        # Any loopback address (127.0.0.0/8) is this machine: tests of per-host limits use several.
        self._lock = threading.Lock()
        self._routes: dict[str, list[Reply]] = {}
        self._hits: dict[str, int] = {}
        self._in_flight = 0
        self.max_in_flight = 0  # most requests handled at once, for concurrency-limit tests
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.posted: list[tuple[str, bytes]] = []  # (path, body) of each POST
        self._httpd = _QuietServer((host, 0), self._handler_class())
        self.base_url = f"http://{host}:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="LocalServer", daemon=True
        )  # short poll: shutdown() waits up to one interval

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    def url(self, path: str) -> str:
        return self.base_url + path

    def set(self, path: str, *replies: Reply) -> None:
        """Serve `replies` in order to successive requests for `path`; the last one repeats. A path may carry a
        query (`/api/prices?$skip=1000`, as the client sends it): that route answers that query alone."""
        if not replies:
            raise ValueError("set() needs at least one Reply")
        with self._lock:
            self._routes[path] = list(replies)

    def serve_file(self, path: str, file: Path, content_type: str = "text/html; charset=utf-8") -> None:
        self.set(path, Reply(body=Path(file).read_bytes(), content_type=content_type))

    def hits(self, path: str) -> int:
        with self._lock:
            return self._hits.get(path, 0)

    def serves(self, path: str) -> bool:
        with self._lock:
            return path in self._routes

    def _next_reply(self, path: str, headers: dict[str, str]) -> Reply | None:
        with self._lock:
            self.requests.append((path, headers))
            self._hits[path] = self._hits.get(path, 0) + 1
            queue = self._routes.get(path)
            if not queue:
                return None
            return queue.pop(0) if len(queue) > 1 else queue[0]

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, like real servers; we close explicitly when truncating

            def do_GET(self) -> None:
                server._enter()
                try:
                    self._answer()
                finally:
                    server._leave()

            def do_POST(self) -> None:
                # Read the request body (keep-alive needs it consumed), then answer like a GET.
                length = int(self.headers.get("Content-Length") or 0)
                server.posted.append((urlsplit(self.path).path, self.rfile.read(length)))
                self.do_GET()

            def _answer(self) -> None:
                # A route set for the path with its query (a later page of a paged answer) wins over the path's.
                parts = urlsplit(self.path)
                with_query = f"{parts.path}?{parts.query}"
                path = with_query if parts.query and server.serves(with_query) else parts.path
                reply = server._next_reply(path, dict(self.headers.items()))
                if reply is None:
                    reply = Reply(status=404, body=b"not found", content_type="text/plain")
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                body = gzip.compress(reply.body) if reply.gzip else reply.body
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(body)))
                if reply.gzip:
                    self.send_header("Content-Encoding", "gzip")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.truncate_to is not None:
                    self.send_header("Connection", "close")
                    body = body[: reply.truncate_to]
                    self.close_connection = True
                self.end_headers()
                if reply.reset_after is not None:
                    self.wfile.write(body[: reply.reset_after])
                    self.wfile.flush()
                    # SO_LINGER 0 makes close() send RST: the client sees "connection reset by peer".
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                for start in range(0, len(body), CHUNK_SIZE):
                    if start and reply.chunks_delay_s:
                        time.sleep(reply.chunks_delay_s)
                    self.wfile.write(body[start : start + CHUNK_SIZE])
                    self.wfile.flush()

            def log_message(self, format: str, *args: object) -> None:
                pass  # keep test output clean

        return Handler
