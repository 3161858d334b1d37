"""The thread plumbing of a many-source refresh: stop signals, daemon workers and waits a stop can interrupt.

A process signal may be delivered to any thread, and Python runs its handler only when the main thread runs
again, so every wait here wakes every POLL_S: a stop is seen within that, never held off by a blocked wait.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, wait
from queue import Empty, Queue
from types import FrameType
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import duckdb

    from pipelines.refresh.one_source import SourceOutcome

POLL_S = 0.1  # how often a waiting thread wakes, so a stop is seen at once
Item = TypeVar("Item")
Done = TypeVar("Done")


class RefreshStopped(Exception):
    """Raised out of refresh_all when the caller stopped it; carries the outcomes landed before the stop."""

    def __init__(self, outcomes: list[SourceOutcome], cause: BaseException):
        super().__init__(f"stopped after {len(outcomes)} source(s): {type(cause).__name__}")
        self.outcomes = outcomes
        self.cause = cause


class StopRequested(BaseException):
    """Raised in the calling thread by a signal handler (SIGTERM), as KeyboardInterrupt is for SIGINT."""

    def __init__(self, signal_number: int):
        super().__init__(f"signal {signal_number}")
        self.signal_number = signal_number


class StopScope:
    """The signals received while a stop scope is open. Only the first raises (StopRequested, in the main thread):
    a second Ctrl-C while the first one's stop unwinds (closing the warehouse, printing the summary) is recorded,
    never raised out of the cleanup. Once `shield()` is called (the work is done, the report is being written),
    none raises; the caller reads `signal_number` and ends with its exit code.

    A signal that finds the main thread importing a module is sent again a moment later instead of raising there:
    an exception inside an import leaves a half-made module behind, and can deadlock with the thread warming up
    Great Expectations' imports."""

    def __init__(self) -> None:
        self.shielded = False
        self.raised = False

    @property
    def signal_number(self) -> int | None:
        return _received[0] if _received else None

    def shield(self) -> None:
        self.shielded = True

    def handle(self, signal_number: int, frame: FrameType | None) -> None:
        _received.append(signal_number)
        if self.raised or self.shielded:
            return
        if importing(frame):
            again = threading.Timer(POLL_S, os.kill, (os.getpid(), signal_number))
            again.daemon = True
            again.start()
            return
        self.raised = True
        raise StopRequested(signal_number)


def importing(frame: FrameType | None) -> bool:
    """Whether the interrupted frame runs inside the import machinery."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def signals_stop(*signal_numbers: int) -> Iterator[StopScope]:
    """These signals raise StopRequested in the main thread, as SIGINT raises KeyboardInterrupt (the first one
    only: see StopScope). Elsewhere (a step run in a worker thread) nothing changes: only the main thread may set
    handlers."""
    scope = StopScope()
    if threading.current_thread() is not threading.main_thread():
        yield scope
        return
    _received.clear()
    previous = {number: signal.signal(number, scope.handle) for number in signal_numbers}
    try:
        yield scope
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        _received.clear()  # a later error, outside this stop's reach, is an error again


# Signals the handler above received. DuckDB 1.5 runs signal handlers while a query executes and, when one
# raises, interrupts the query and raises RuntimeError("Query interrupted") instead: the stop is then known here.
_received: list[int] = []


def as_stop(exc: BaseException) -> BaseException | None:
    """The stop `exc` stands for: itself (KeyboardInterrupt, StopRequested), a StopRequested for a signal that
    DuckDB turned into an interrupted query (or any error raised while a stop unwinds), or None otherwise."""
    if isinstance(exc, KeyboardInterrupt | StopRequested):
        return exc
    return StopRequested(_received[0]) if _received else None


def stop_signal(exc: BaseException) -> int | None:
    """The signal number `exc` stands for (a RefreshStopped, a stop, or an error raised while one unwinds; SIGINT
    for a plain KeyboardInterrupt), or None when it is an error, not a stop."""
    stop = exc.cause if isinstance(exc, RefreshStopped) else as_stop(exc)
    if stop is None:
        return None
    return int(stop.signal_number if isinstance(stop, StopRequested) else signal.SIGINT)


def result_of(future: Future[Done]) -> Done:
    """The future's result, waking every POLL_S: a process signal may be delivered to a worker thread, and Python
    runs its handler only when the main thread runs again, so an unbounded wait could hold off a stop."""
    while True:
        with contextlib.suppress(TimeoutError):
            return future.result(timeout=POLL_S)


def settle(futures: list[Future[Done]]) -> None:
    """Wait until every future is done, waking every POLL_S as result_of does."""
    while wait(futures, timeout=POLL_S).not_done:
        pass


def start_workers(
    task: Callable[[Item], Done], work: list[Item], count: int, stopping: threading.Event
) -> list[Future[Done]]:
    """`count` daemon threads running `task` over `work` in order. Daemons, because a stopped refresh must not
    wait at exit for a fetch still reading a slow answer (ThreadPoolExecutor joins its threads at exit)."""
    queue: Queue[tuple[Item, Future[Done]]] = Queue()
    futures: list[Future[Done]] = []
    for item in work:
        future: Future[Done] = Future()
        futures.append(future)
        queue.put((item, future))

    def worker() -> None:
        while not stopping.is_set():
            try:
                item, future = queue.get_nowait()
            except Empty:
                return
            try:
                future.set_result(task(item))
            except BaseException as exc:  # a bug in one source's work is reported by the writer, who lands it
                future.set_exception(exc)

    try:
        for number in range(min(count, len(work))):
            threading.Thread(target=worker, name=f"ratecard-source-{number}", daemon=True).start()
    except BaseException:  # a stop while the first workers already fetch: they take no more work
        stopping.set()
        raise
    return futures


class CursorsInUse:
    """The DuckDB cursors other threads are working with, so that a stop can wait for them: a daemon thread still
    inside DuckDB when the interpreter exits is ended through C++ frames (std::terminate, SIGABRT)."""

    def __init__(self, stopping: threading.Event) -> None:
        self.stopping = stopping
        self._busy: set[duckdb.DuckDBPyConnection] = set()
        self._changed = threading.Condition()

    def take(self, con: duckdb.DuckDBPyConnection) -> bool:
        """Start working with `con`; False once the refresh is stopping (then leave it untouched, unclosed: it goes
        with the process, closed by no thread)."""
        with self._changed:
            if self.stopping.is_set():
                return False
            self._busy.add(con)
            return True

    def release(self, con: duckdb.DuckDBPyConnection) -> None:
        """Done with `con` for now, and tell a waiting stop."""
        with self._changed:
            self._busy.discard(con)
            self._changed.notify_all()

    def close(self, con: duckdb.DuckDBPyConnection) -> None:
        """Done with `con` for good: close it, then release it, holding the lock `quit` interrupts under. A stop must
        never interrupt a cursor while another thread closes it: DuckDB would interrupt a connection it is
        destroying, and may leave the database instance referenced after its last close, which makes the next
        opening of the file in this process spin forever."""
        with self._changed:
            try:
                con.close()
            finally:
                self._busy.discard(con)
                self._changed.notify_all()

    def quit(self, timeout_s: float) -> bool:
        """Once `stopping` is set: interrupt whatever the cursors run and wait until their threads closed them."""
        with self._changed:
            for con in self._busy:
                con.interrupt()
            return self._changed.wait_for(lambda: not self._busy, timeout=timeout_s)
