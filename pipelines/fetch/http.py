"""Fetch one source page over HTTP: bounded in time and size, polite, retried on transient failures. Plain Python
(no Dagster) so the CLI, the assets and the tests all share it."""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from pathlib import Path

import httpx
import pydantic
import tenacity

from pipelines.clock import utc_now
from pipelines.errors import FetchError
from pipelines.fetch.body import read_body
from pipelines.fetch.causes import describe, status_cause, transport_cause
from pipelines.fetch.limits import Deadline, HostBreaker, endpoint
from pipelines.fetch.responses import (
    MAX_REDIRECTS,
    REDIRECT_STATUSES,
    RETRY_AFTER_STATUSES,
    RETRY_STATUSES,
    TRANSIENT_ERRORS,
    Retryable,
    connect_failure,
    redirect_target,
    retry_after_s,
)
from pipelines.fetch.spool import spooling


class FetchSettings(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="forbid")

    connect_timeout_s: float = pydantic.Field(10.0, gt=0)
    read_timeout_s: float = pydantic.Field(30.0, gt=0)
    max_attempts: int = pydantic.Field(4, ge=1)  # total tries, including the first
    backoff_initial_s: float = pydantic.Field(0.5, ge=0)
    backoff_max_s: float = pydantic.Field(30.0, ge=0)
    max_retry_after_s: float = pydantic.Field(120.0, ge=0)  # a longer Retry-After: give up at once
    max_bytes: int = pydantic.Field(10 * 1024 * 1024, ge=1)  # cap on the decompressed body
    per_host_limit: int = pydantic.Field(2, ge=1)  # concurrent requests per host
    trip_after_timeouts: int = pydantic.Field(3, ge=1)  # timeouts in a row that trip a host (fetch/limits.py)
    deadline_s: float | None = pydantic.Field(None, gt=0)  # over the Fetcher's whole life; None: no deadline
    user_agent: str = "ratecard/0.1 (+https://github.com/ratecard/ratecard; price pipeline)"


@dataclass(frozen=True)
class FetchResult:
    source_id: str
    url: str  # the URL requested
    final_url: str  # after any (same-host) redirects
    status: int
    fetched_at: datetime  # tz-aware UTC, when the successful attempt started
    body: bytes
    sha256: str
    content_type: str | None
    elapsed_ms: int  # whole fetch, retries and waits included
    attempts: int
    # Set when the body was streamed to this file (`spool_to`, zstd) instead of memory: `body` is then empty.
    body_file: Path | None = None
    body_file_size: int = 0  # the body's own size, not the compressed file's

    @property
    def size(self) -> int:
        return self.body_file_size if self.body_file is not None else len(self.body)


@dataclass(frozen=True)
class _Request:
    method: str
    body: bytes | None
    content_type: str | None
    headers: dict[str, str]  # may hold credentials: never put in a message
    max_bytes: int  # cap on the decompressed body
    spool_to: Path | None  # stream the body to this file rather than into memory


@dataclass(frozen=True)
class _Page:  # what one successful attempt yields
    fetched_at: datetime
    final_url: str
    status: int
    content_type: str | None
    body: bytes
    spooled_sha256: str | None = None  # the hash of a body streamed to a file, taken as it arrived
    spooled_size: int = 0


class Fetcher:
    """Fetches pages through one shared httpx.Client. Thread-safe; use as a context manager or call close()."""

    def __init__(self, settings: FetchSettings | None = None, *, sleep: Callable[[float], None] = time.sleep):
        self.settings = settings or FetchSettings()
        self._sleep = sleep
        s = self.settings
        self._client = httpx.Client(
            timeout=httpx.Timeout(s.read_timeout_s, connect=s.connect_timeout_s),
            headers={"User-Agent": s.user_agent, "Accept-Encoding": "gzip"},
            follow_redirects=False,  # we follow by hand, to vet each hop's host
        )
        self._backoff = tenacity.wait_exponential_jitter(
            multiplier=s.backoff_initial_s, max=s.backoff_max_s, jitter=s.backoff_initial_s
        )
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._slots_lock = threading.Lock()
        self._breaker = HostBreaker(s.trip_after_timeouts)
        self._deadline = Deadline.after(s.deadline_s)

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def fetch(
        self,
        source_id: str,
        url: str,
        *,
        allowed_hosts: frozenset[str] | None = None,
        method: str = "GET",
        body: bytes | None = None,
        content_type: str | None = None,
        headers: dict[str, str] | None = None,
        max_bytes: int | None = None,
        spool_to: Path | None = None,
    ) -> FetchResult:
        """GET (or POST `body`, for APIs such as GraphQL) one URL, retried and capped as configured (`max_bytes`
        overrides the settings' cap for this request: a regional price-list file is far above a page's). With
        `spool_to` the body is streamed to that file zstd-compressed, never held in memory (FetchResult.body_file)."""
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL as exc:
            raise FetchError(source_id, f"invalid URL {url!r}: {exc}", cause="request") from exc
        if parsed.scheme not in ("http", "https") or not parsed.host:
            raise FetchError(source_id, f"not an http(s) URL: {url!r}", cause="request")
        if allowed_hosts is not None and parsed.host not in allowed_hosts:
            message = f"host {parsed.host} not in allowed hosts {sorted(allowed_hosts)}"
            raise FetchError(source_id, message, cause="request")
        hosts_ok = frozenset({parsed.host}) | (allowed_hosts or frozenset())

        started = time.monotonic()
        retrying = tenacity.Retrying(
            sleep=lambda seconds: self._sleep(self._until_deadline(float(seconds))),  # tenacity: a float subclass
            stop=tenacity.stop_after_attempt(self.settings.max_attempts),
            wait=self._wait,
            retry=tenacity.retry_if_exception_type(Retryable),
        )
        try:
            for attempt in retrying:
                with attempt:
                    page = self._attempt(
                        source_id,
                        parsed,
                        hosts_ok,
                        _Request(
                            method, body, content_type, headers or {}, max_bytes or self.settings.max_bytes, spool_to
                        ),
                    )
        except tenacity.RetryError as exc:
            last = exc.last_attempt
            failure = last.exception()
            assert isinstance(failure, Retryable)
            message = f"gave up after {last.attempt_number} attempts: {failure.detail}"
            raise FetchError(
                source_id, message, status=failure.status, retryable=True, cause=failure.cause
            ) from failure

        return FetchResult(
            source_id=source_id,
            url=url,
            final_url=page.final_url,
            status=page.status,
            fetched_at=page.fetched_at,
            body=page.body,
            sha256=page.spooled_sha256 or hashlib.sha256(page.body).hexdigest(),
            content_type=page.content_type,
            elapsed_ms=round((time.monotonic() - started) * 1000),
            attempts=attempt.retry_state.attempt_number,
            body_file=spool_to,
            body_file_size=page.spooled_size,
        )

    def _wait(self, retry_state: tenacity.RetryCallState) -> float:
        # The server's Retry-After, when it gave one, beats our own guess.
        failure = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(failure, Retryable) and failure.retry_after_s is not None:
            return failure.retry_after_s
        return self._backoff(retry_state)

    def _until_deadline(self, seconds: float) -> float:
        """`seconds`, cut to what is left before the deadline (a backoff never sleeps past it)."""
        left = self._deadline.left()
        return seconds if left is None else min(seconds, left)

    def _slot(self, host: str) -> threading.BoundedSemaphore:
        with self._slots_lock:
            if host not in self._slots:
                self._slots[host] = threading.BoundedSemaphore(self.settings.per_host_limit)
            return self._slots[host]

    @contextlib.contextmanager
    def _turn(self, source_id: str, url: httpx.URL) -> Iterator[httpx.Timeout]:
        """One of the host's slots, held for a request and its body; yields the request's timeouts, cut to the
        deadline. Refused when the deadline passes first, or the host tripped while this request waited."""
        self._deadline.check(source_id, "not fetched")
        host = url.host
        self._breaker.check_resolves(source_id, host)
        self._breaker.check(source_id, endpoint(url))
        slot = self._slot(host)
        if not slot.acquire(timeout=self._deadline.left()):  # None: as long as it takes
            raise self._deadline.passed(source_id, f"not fetched (waiting for its turn at {host})")
        try:
            self._breaker.check_resolves(source_id, host)  # as found by the requests this one waited behind
            self._breaker.check(source_id, endpoint(url))
            read, connect = self.settings.read_timeout_s, self.settings.connect_timeout_s
            yield httpx.Timeout(self._until_deadline(read), connect=self._until_deadline(connect))
        finally:
            slot.release()

    def _attempt(self, source_id: str, url: httpx.URL, hosts_ok: frozenset[str], request: _Request) -> _Page:
        """One try: follow redirects by hand, check the status, read the body under the size cap."""
        fetched_at = utc_now()
        for _hop in range(MAX_REDIRECTS + 1):
            try:
                # Hold the host's slot for the request and its body, never while backing off.
                headers = dict(request.headers)
                if request.content_type:
                    headers["Content-Type"] = request.content_type
                with (
                    self._turn(source_id, url) as timeout,
                    self._client.stream(
                        request.method, url, content=request.body, headers=headers, timeout=timeout
                    ) as response,
                ):
                    self._breaker.answered(endpoint(url))
                    if response.status_code in REDIRECT_STATUSES:
                        url = redirect_target(source_id, response, hosts_ok)
                        continue
                    self._check_status(source_id, response)
                    with spooling(request.spool_to) as spool:
                        cut = partial(self._deadline.check, source_id)  # the body stops at the deadline
                        body = read_body(source_id, response, request.max_bytes, spool, cut)
                    content_type = response.headers.get("Content-Type")
                    page = _Page(fetched_at, str(response.url), response.status_code, content_type, body)
                    if spool is not None:
                        page = replace(page, spooled_sha256=spool.digest.hexdigest(), spooled_size=spool.size)
                    return page
            except httpx.ConnectError as exc:
                failure = connect_failure(source_id, url, exc)
                if isinstance(failure, FetchError) and failure.cause == "dns":
                    self._breaker.did_not_resolve(url.host, failure.message)
                raise failure from exc
            except httpx.TimeoutException as exc:
                raise self._timed_out(source_id, endpoint(url), exc) from exc
            except TRANSIENT_ERRORS as exc:
                raise Retryable(describe(exc), transport_cause(exc)) from exc
            except httpx.HTTPError as exc:  # e.g. UnsupportedProtocol, WriteTimeout: retrying will not help
                raise FetchError(source_id, describe(exc), cause=transport_cause(exc)) from exc
        raise FetchError(source_id, f"more than {MAX_REDIRECTS} redirects", cause="redirect")

    def _timed_out(self, source_id: str, host: str, exc: httpx.TimeoutException) -> Retryable | FetchError:
        """A timeout counts toward tripping its host; one cut short by the deadline is final."""
        if self._deadline.left() == 0.0:
            return self._deadline.passed(source_id, f"cut off ({describe(exc)})")
        self._breaker.timed_out(host, describe(exc))
        return Retryable(describe(exc), "timeout")

    def _check_status(self, source_id: str, response: httpx.Response) -> None:
        status = response.status_code
        if 200 <= status < 300:
            return
        what = f"HTTP {status} {response.reason_phrase}".rstrip()
        cause = status_cause(status)
        if status not in RETRY_STATUSES:
            raise FetchError(source_id, f"{what} for {response.url}", status=status, cause=cause)
        retry_after = retry_after_s(response.headers.get("Retry-After")) if status in RETRY_AFTER_STATUSES else None
        if retry_after is not None and retry_after > self.settings.max_retry_after_s:
            # Waiting that long would stall the whole run; better to fail now and say why.
            raise FetchError(
                source_id,
                f"{what} with Retry-After {retry_after:g}s, over the {self.settings.max_retry_after_s:g}s limit; "
                "not retrying",
                status=status,
                retryable=True,
                cause=cause,
            )
        raise Retryable(what, cause, status=status, retry_after_s=retry_after)
