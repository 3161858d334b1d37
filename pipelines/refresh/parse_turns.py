"""Parsing one source at a time, and the batches the checker validates: what was parsing waits to join them.

Parsing and preparing a body (BeautifulSoup, pydantic, Decimal arithmetic) is pure Python holding the GIL, so
many threads at it at once finish no sooner than one at a time; they only slow whatever else needs the GIL,
above all the checker's Great Expectations run, on which the writer waits. So sources parse in turn, and the
checker, before it validates, waits for the sources already in line to parse (a few ms each): one GE run then
covers them all, since its cost is per run, not per row.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

Parsed = TypeVar("Parsed")
WAIT_S = 0.1  # how often a waiting checker looks at the stop flag


class ParseTurns(Generic[Parsed]):
    def __init__(self) -> None:
        self._turn = threading.Lock()
        self._changed = threading.Condition()
        self._in_line: set[str] = set()
        self._done: list[Parsed] = []

    def parse(self, key: str, work: Callable[[], Parsed]) -> Parsed:
        """`work` in its turn; its result joins the next batch."""
        with self._changed:
            self._in_line.add(key)
        try:
            with self._turn:
                parsed = work()
            with self._changed:
                self._done.append(parsed)
            return parsed
        finally:
            with self._changed:
                self._in_line.discard(key)
                self._changed.notify_all()

    def batch(self, stopping: threading.Event) -> list[Parsed]:
        """Everything parsed since the last batch, once the sources in line now have parsed too (or a stop)."""
        with self._changed:
            waiting_for = set(self._in_line)
            while waiting_for & self._in_line and not stopping.is_set():
                self._changed.wait(WAIT_S)
            done, self._done = self._done, []
        return done
