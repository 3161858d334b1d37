"""How `reparse` and `backfill pricelist` end on SIGINT or SIGTERM, whatever they were doing: as `refresh` does.

The command runs under a stop scope (pipelines.refresh.threads.signals_stop). A stop at any point (a signal, or
DuckDB's interrupted query standing for one) rolls back what was in flight, and the command ends with the
"stopped by" summary of what was committed before it, a details log and exit 130 / 143: never a traceback.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

import typer
from rich.console import Console

from pipelines.cli.refresh_report import RefreshReport, print_summary, write_log
from pipelines.refresh.one_source import SourceOutcome
from pipelines.refresh.threads import StopScope, signals_stop, stop_signal


@contextlib.contextmanager
def stops_cleanly(
    command: str, db: Path, console: Console, done_so_far: Callable[[], list[SourceOutcome]]
) -> Iterator[StopScope]:
    """The block under a stop scope; a stop ends the command with `done_so_far()` as its summary and log."""
    with signals_stop(signal.SIGTERM, signal.SIGINT) as scope:
        try:
            yield scope
        except BaseException as exc:
            number = stop_signal(exc)
            if number is None:
                raise
            scope.shield()  # a second Ctrl-C must not cut the report short
            report = RefreshReport(done_so_far(), {}, stopped_by=number)
            report.log_path = write_log(report, db, command)
            print_summary(report, db, console, command)
            raise typer.Exit(code=report.exit_code) from None


def stopped_before_the_refresh(exc: BaseException, scope: StopScope, console: Console) -> NoReturn:
    """`exc` again when it is an error; for a stop before run_refresh took over (reading the sources file, waiting
    for the lock, opening the warehouse), the line saying nothing was fetched, and exit 130 / 143."""
    number = stop_signal(exc)
    if number is None:
        raise exc
    scope.shield()
    name = signal.Signals(number).name
    console.print(f"[red]stopped by {name}[/] before any source was fetched: nothing landed, nothing published")
    raise typer.Exit(code=RefreshReport([], {}, stopped_by=number).exit_code) from None
