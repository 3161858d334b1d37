"""Stop signals held back while DuckDB does work that an interrupt would break.

DuckDB 1.5.5 runs Python's signal handlers while it works, and interrupts the work when one raises. An interrupted
opening, creation or closing of a file, or ATTACH or DETACH, leaves the file's database instance alive with nothing
holding it: the next connect() to that file then spins forever in DuckDB's instance cache ("wait until the database
is fully shut down"), holding the GIL, so a stopped refresh hung instead of reporting what landed. Inside
`stops_deferred()` SIGINT and SIGTERM are only recorded; on leaving, each is raised again, in order, so its own
handler runs where Python code runs.

Only the main thread may set handlers, and only it runs them: in any other thread this changes nothing.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

STOPS: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)
Handler = Callable[[int, FrameType | None], Any] | int
_held: list[list[int]] = []  # per open block (they nest), the stops it holds back


def stop_held() -> bool:
    """Whether a stop is waiting for a block to end (a failpoint parked inside one wakes so that it can end)."""
    return any(_held)


@contextlib.contextmanager
def stops_deferred() -> Iterator[None]:
    """Within: a stop signal waits until the block ends, then its handler runs as if it had just arrived."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous: dict[int, Handler] = {}
    _held.append(received)
    try:
        for number in STOPS:
            handler = signal.getsignal(number)
            if handler is not None:  # None: set outside Python, so it could not be put back
                signal.signal(number, lambda n, _frame: received.append(n))
                previous[number] = handler
        yield
    finally:
        _held.pop()  # blocks end in the order opposite to their start (main thread only)
        for number, handler in previous.items():
            signal.signal(number, handler)
        for number in received:
            signal.raise_signal(number)
