"""Why a fetch failed, as a FetchCause: read from httpx's exception (and the socket error it wraps) or a status.

The cause lets a caller see that every source failed the same way: all "dns" or "refused" means no network.
"""

from __future__ import annotations

import errno
import socket

import httpx

from pipelines.errors import FetchCause


def connect_cause(exc: httpx.ConnectError) -> FetchCause:
    """'dns' or 'refused' when the exception chain says so (httpx wraps the socket error twice), else 'connect'."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, socket.gaierror):
            return "dns"
        if isinstance(link, ConnectionRefusedError) or (isinstance(link, OSError) and link.errno == errno.ECONNREFUSED):
            return "refused"
        link = link.__cause__ or link.__context__
    return "connect"


def final_connect_message(url: httpx.URL, cause: FetchCause, exc: httpx.ConnectError) -> str:
    """Names the host and what happened, for a connect failure that no retry would mend."""
    if cause == "dns":
        return f"host {url.host} does not resolve (no network?): {exc}"
    port = url.port or (443 if url.scheme == "https" else 80)
    return f"connection to {url.host}:{port} refused (nothing listening, or no network?): {exc}"


def transport_cause(exc: httpx.HTTPError) -> FetchCause:
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx.ConnectError):
        return "connect"
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return "broken"
    return "request"


def status_cause(status: int) -> FetchCause:
    if status == 429:
        return "http-429"
    if 500 <= status < 600:
        return "http-5xx"
    return "http-4xx" if 400 <= status < 500 else "http-other"


def describe(exc: Exception) -> str:
    """The exception's type and text, for a message: 'ReadTimeout: timed out'."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
