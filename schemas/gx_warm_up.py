"""Great Expectations imported, and the gate built, in a background thread that the process waits for at exit.

Importing GE takes seconds, so a refresh or reparse starts it at once and works meanwhile. But a thread still
running when the interpreter finalises is cut off where it stands (CPython ends a daemon thread that asks for the
GIL after finalisation began), and cut off inside an extension's C++ frames it aborts the whole process with
"terminate called without an active exception": a command that had printed its summary then exited -6. So the
warm-up is joined at exit. Joined that late (atexit runs after `threading` has shut down), the import usually
fails at its next module that registers with `threading` (concurrent.futures), so the wait is short; whatever it
raises is dropped, as a failed warm-up is left to the first validation.

This module imports nothing heavy: the thread imports gx_runner (and with it pandas) itself.
"""

from __future__ import annotations

import atexit
import contextlib
import signal
import threading


class _WarmUp:
    """The process's one warm-up thread, once started."""

    lock = threading.Lock()
    thread: threading.Thread | None = None


def warm_up_in_background() -> threading.Thread:
    """Start importing GE and building the gate in a thread (once a process; later calls return that thread)."""
    with _WarmUp.lock:
        if _WarmUp.thread is None:
            thread = threading.Thread(target=_warm_up, name="ratecard-ge-warm-up", daemon=True)
            atexit.register(_join_at_exit, thread)
            thread.start()
            _WarmUp.thread = thread
        return _WarmUp.thread


def _warm_up() -> None:
    with contextlib.suppress(Exception):
        from schemas.gx_runner import warm_up

        warm_up()


def _join_at_exit(thread: threading.Thread) -> None:
    """Wait for the warm-up to end. SIGINT and SIGTERM are ignored meanwhile (the process is already exiting):
    raised here they would only print a traceback and leave the thread to be cut off, the very abort this wait
    prevents. atexit runs in the main thread, the only one that may set handlers."""
    if not thread.is_alive():
        return
    stops = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.signal(number, signal.SIG_IGN) for number in stops}
    try:
        thread.join()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
