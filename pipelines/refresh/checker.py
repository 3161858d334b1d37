"""The checker thread of a refresh of many sources (pipelines.refresh.many_sources): it validates the gathered
sources in landing order, many per GE run, while the writer lands the earlier ones."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any, Protocol, TypeVar

import duckdb

from pipelines.refresh.threads import CursorsInUse, result_of, settle
from warehouse.failpoints import failpoint


class Verdict(Protocol):
    """A gathered source as the checker sees it: prepared and waiting for validation, or its verdict in."""

    checked: Any
    prepared: Any


G = TypeVar("G", bound=Verdict)


class CheckingRun(Protocol[G]):
    """What the checker needs of the refresh: the stop, the cursors in use, and validation of a batch."""

    stopping: threading.Event
    cursors: CursorsInUse

    def validate(self, reader: duckdb.DuckDBPyConnection, waiting: list[G]) -> None: ...

    def parsed_since(self, gathered: G) -> list[G]: ...


def start_checker(
    run: CheckingRun[G], reader: duckdb.DuckDBPyConnection, futures: list[Future[G]], *, wait_for_all: bool
) -> tuple[list[Future[G]], threading.Event]:
    """One thread validating the gathered sources in landing order while the writer lands the earlier ones: GE
    holds the GIL, DuckDB releases it while it executes, so validation and landing overlap on two cores. The event
    is set once the thread has closed its reader: a writer that returns before then may see the interpreter exit
    while this daemon is inside DuckDB's close, which ends the thread through C++ frames (std::terminate, SIGABRT)."""
    checked: list[Future[G]] = [Future() for _ in futures]
    reader_closed = threading.Event()

    def check() -> None:
        try:
            if wait_for_all:
                settle(futures)
            for index, future in enumerate(futures):
                if run.stopping.is_set():
                    return
                try:
                    gathered = result_of(future)
                    if gathered.checked is None and gathered.prepared is not None:
                        # Stop tests signal here, before the checker takes its cursor: a stop waits for a thread
                        # inside DuckDB, and a thread parked here is not.
                        failpoint("validate")
                        if not run.cursors.take(reader):  # stopped: validate nothing more
                            return
                        try:
                            run.validate(reader, [gathered, *run.parsed_since(gathered)])
                        finally:
                            run.cursors.release(reader)
                except BaseException as exc:  # the writer raises it when it reaches this source
                    checked[index].set_exception(exc)
                    continue
                checked[index].set_result(gathered)
        finally:
            if run.cursors.take(reader):  # not stopping: close it (a stop now waits for that)
                run.cursors.close(reader)
            reader_closed.set()

    threading.Thread(target=check, name="ratecard-checker", daemon=True).start()
    return checked, reader_closed
