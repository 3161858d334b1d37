"""How one HTTP attempt's outcome is read: worth a retry, a redirect to follow, or a final failure.

Kept apart from http.py's Fetcher (which loops over attempts) so each stays small.
"""

from __future__ import annotations

import email.utils
from datetime import UTC, datetime

import httpx

from pipelines.errors import FetchCause, FetchError
from pipelines.fetch.causes import connect_cause, describe, final_connect_message

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
RETRY_AFTER_STATUSES = frozenset({429, 503})  # the statuses whose Retry-After we honour
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5
# Transport failures that a later attempt may well not hit; anything else from httpx is final. A ConnectError
# is final too when the host does not resolve or refuses the connection (see connect_failure).
TRANSIENT_ERRORS = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.ReadTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
)


class Retryable(Exception):
    """One attempt failed in a way worth retrying. Fetcher.fetch() turns it into FetchError."""

    def __init__(
        self, detail: str, cause: FetchCause, *, status: int | None = None, retry_after_s: float | None = None
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.cause = cause
        self.status = status
        self.retry_after_s = retry_after_s


def redirect_target(source_id: str, response: httpx.Response, hosts_ok: frozenset[str]) -> httpx.URL:
    location = response.headers.get("Location")
    if not location:
        raise FetchError(source_id, "redirect without a Location header", status=response.status_code, cause="redirect")
    target = response.url.join(location)
    # Pages must come from where the sources file says; a redirect elsewhere is a change worth a human look.
    if target.host not in hosts_ok:
        message = f"redirect to other host {target.host} refused ({target})"
        raise FetchError(source_id, message, status=response.status_code, cause="redirect")
    return target


def connect_failure(source_id: str, url: httpx.URL, exc: httpx.ConnectError) -> FetchError | Retryable:
    """A host that does not resolve or refuses will do the same on every try (typically: no network), so that
    fails at once; any other failed connect (TLS, unreachable) is worth another attempt."""
    cause = connect_cause(exc)
    if cause == "connect":
        return Retryable(describe(exc), cause)
    return FetchError(source_id, final_connect_message(url, cause, exc), retryable=False, cause=cause)


def retry_after_s(value: str | None) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP-date. None when absent or unreadable."""
    value = (value or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
