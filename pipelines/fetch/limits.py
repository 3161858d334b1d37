"""What stops one hanging host, or one slow run, from holding a whole refresh: a per-host circuit breaker and a
deadline over every fetch of one Fetcher.

A host whose name did not resolve is remembered for the Fetcher's life too: every later request to it fails at
once with the same message. Without a network the resolver can take seconds to say so (a DNS server that drops
some of many lookups costs each its resolver timeouts), and one answer is enough for every source on that host.

A load balancer that accepts connections and never answers costs each request its full read timeout, and each
source its retries: with 31 sources at 2 per host that is half an hour. After `trip_after` timeouts in a row on
one host and port (no answer in between), that endpoint is tripped: every later request to it fails at once, naming the
timeouts, and its sources are tried again on the next run (a new Fetcher starts with every host closed). An
answer of any status resets the count: a host that answers, even with errors, is not hanging.

The deadline is one instant for the Fetcher's whole life (one refresh). A request that starts after it fails at
once; one in flight has its timeouts cut to what is left, and its body stops at the deadline. What was fetched
before it stays fetched, and lands.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from pipelines.errors import FetchError


@dataclass
class HostBreaker:
    """Consecutive timeouts per endpoint (host:port); one is tripped once it reaches `trip_after`. Thread-safe."""

    trip_after: int
    _timeouts: dict[str, int] = field(default_factory=dict)
    _last: dict[str, str] = field(default_factory=dict)  # the last timeout's description, for the message
    _unresolved: dict[str, str] = field(default_factory=dict)  # host -> what the failed lookup said
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def timed_out(self, host: str, detail: str) -> None:
        with self._lock:
            self._timeouts[host] = self._timeouts.get(host, 0) + 1
            self._last[host] = detail

    def answered(self, host: str) -> None:
        with self._lock:
            self._timeouts.pop(host, None)

    def did_not_resolve(self, host: str, message: str) -> None:
        with self._lock:
            self._unresolved.setdefault(host, message)

    def check_resolves(self, source_id: str, host: str) -> None:
        """Raises FetchError (cause "dns") when an earlier request found that `host` does not resolve."""
        with self._lock:
            message = self._unresolved.get(host)
        if message is not None:
            raise FetchError(source_id, f"{message} (an earlier request of this run)", retryable=False, cause="dns")

    def check(self, source_id: str, host: str) -> None:
        """Raises FetchError (cause "host-down") when `host` is tripped."""
        with self._lock:
            count, last = self._timeouts.get(host, 0), self._last.get(host, "")
        if count >= self.trip_after:
            message = (
                f"not fetched: host {host} tripped after {count} timeouts in a row ({last}); it accepts connections "
                "but does not answer. Its sources are tried again on the next run"
            )
            raise FetchError(source_id, message, retryable=True, cause="host-down")


@dataclass(frozen=True)
class Deadline:
    """An instant on the monotonic clock, or none (`at` None: never passes)."""

    at: float | None
    seconds: float | None  # the budget it was set from, for messages
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def after(cls, seconds: float | None, clock: Callable[[], float] = time.monotonic) -> Deadline:
        return cls(None if seconds is None else clock() + seconds, seconds, clock)

    def left(self) -> float | None:
        """Seconds until the deadline (never below 0), or None without one."""
        return None if self.at is None else max(0.0, self.at - self.clock())

    def check(self, source_id: str, doing: str) -> None:
        """Raises FetchError (cause "deadline") once the deadline has passed; `doing` says what was cut."""
        if self.left() == 0.0:
            raise self.passed(source_id, doing)

    def passed(self, source_id: str, doing: str) -> FetchError:
        message = (
            f"{doing}: the refresh's deadline of {self.seconds:g} s passed (set by [fetch] deadline_s in the sources "
            "file, or --deadline); tried again on the next run"
        )
        return FetchError(source_id, message, retryable=True, cause="deadline")


def endpoint(url: httpx.URL) -> str:
    """What the circuit breaker trips: one host and port (another port of the same host is another service)."""
    return f"{url.host}:{url.port or (443 if url.scheme == 'https' else 80)}"
