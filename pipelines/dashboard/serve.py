"""`ratecard serve`: the generated site over HTTP on 127.0.0.1 only (never another interface)."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pipelines.dashboard import DashboardError, PortTaken

HOST = "127.0.0.1"


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not worth a line each on the terminal."""


def site_server(site: Path, port: int) -> ThreadingHTTPServer:
    """A server for `site` on 127.0.0.1:port (port 0: any free one; read it from server_address)."""
    if not (site / "index.html").is_file():
        raise DashboardError(f"{site}: no dashboard here (no index.html); run `ratecard dashboard` first")
    try:
        return ThreadingHTTPServer((HOST, port), functools.partial(QuietHandler, directory=str(site)))
    except OSError as exc:  # EADDRINUSE, or EACCES for a port below 1024
        raise PortTaken(f"cannot serve on {HOST}:{port}: {exc.strerror or exc}") from exc
