"""`ratecard refresh`: every selected source at once through pipelines.refresh.many_sources, with live progress.

Plain Python, no Dagster: a Dagster run costs about a second of fixed overhead, which a per-source run paid
again for each source. The terminal gets one progress line per source and one summary line per failed
source; the details (full errors, warnings, validation failures) go to a log file named at the end. SIGINT
and SIGTERM stop the whole refresh: nothing half-landed, what landed before the stop listed, exit 130 / 143.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from pipelines.cli.faults import machine_fault
from pipelines.cli.refresh_report import STATUS_STYLE, RefreshReport, no_network, print_summary, write_log
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.fan_out import reads_index
from pipelines.refresh.logged import LogUnreadable, logged_in, made_whole
from pipelines.refresh.many_sources import refresh_all
from pipelines.refresh.one_source import SourceOutcome
from pipelines.refresh.threads import StopScope, as_stop, stop_signal
from pipelines.sources.file import SourcesFile, SourceSpec
from warehouse.failpoints import failpoint
from warehouse.target import local_dir


def run_refresh(
    sources_file: SourcesFile,
    selected: list[SourceSpec],
    db: Path,
    console: Console,
    *,
    offline: bool,
    mark: int,
    deadline_s: float | None = None,
) -> RefreshReport:
    """The refresh, its reference files and the publish, under a stop scope the caller holds: a stop at any point
    (a signal, or DuckDB's interrupted query standing for one) ends it with a report of what landed, made whole
    from fetch_log rows after `mark` (the run's first fetch id - 1)."""
    done: list[SourceOutcome] = []  # every outcome reported so far: a stop may lose the list refresh_all holds
    seconds: dict[str, float] = {}
    try:
        return _refresh_and_publish(sources_file, selected, db, console, offline, deadline_s, done, seconds)
    except BaseException as exc:
        number = stop_signal(exc)
        if number is None:
            fault = machine_fault(exc, local_dir(db))
            if fault is None:
                raise
            # The summary of what landed before the fault; the warehouse may be unwritable now, so no fetch_log.
            return RefreshReport(list(done), seconds, fault=fault)
        try:
            logged = logged_in(db, mark)
        except LogUnreadable as unread:  # the outcomes reported so far; one landed as the stop arrived may be missing
            return RefreshReport(
                list(done),
                seconds,
                stopped_by=number,
                notes=[
                    f"{unread}: the summary may miss a "
                    "source that landed as the stop arrived; `ratecard changes` shows what landed"
                ],
            )
        return RefreshReport(made_whole(done, logged), seconds, stopped_by=number)


def _refresh_and_publish(
    sources_file: SourcesFile,
    selected: list[SourceSpec],
    db: Path,
    console: Console,
    offline: bool,
    deadline_s: float | None,
    done: list[SourceOutcome],
    seconds: dict[str, float],
) -> RefreshReport:
    from pipelines.fetch.offline import pointed_at, serve_directory
    from warehouse.publish import publish_snapshot
    from warehouse.transactions import label_commits

    label_commits("ratecard refresh", refresh=f"cli {datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ} pid {os.getpid()}")
    archive = Archive(local_dir(db) / "archive")
    settings = FetchSettings(
        per_host_limit=sources_file.concurrency.per_host,
        trip_after_timeouts=sources_file.fetch.trip_after_timeouts,
        deadline_s=deadline_s or sources_file.fetch.deadline_s,
    )
    started: dict[str, float] = {}
    with contextlib.ExitStack() as stack:
        sources = pointed_at(selected, stack.enter_context(serve_directory())) if offline else selected
        fetcher = stack.enter_context(Fetcher(settings))
        progress = stack.enter_context(_progress(console))
        tasks = {s.id: progress.add_task(f"[dim]{s.id}: waiting", start=False) for s in sources if not reads_index(s)}

        def task(source_id: str) -> TaskID:
            # A price-list source reports as its regions, which are known only once its region index is read.
            if source_id not in tasks:
                tasks[source_id] = progress.add_task(f"[dim]{source_id}: waiting", start=False)
            return tasks[source_id]

        def on_phase(source_id: str, phase: str) -> None:
            if source_id not in started:
                started[source_id] = time.perf_counter()
                progress.start_task(task(source_id))
            progress.update(tasks[source_id], description=f"{source_id}: {phase}")

        def on_done(outcome: SourceOutcome) -> None:
            done.append(outcome)
            task(outcome.source_id)
            seconds[outcome.source_id] = max(
                0.0, time.perf_counter() - started.get(outcome.source_id, time.perf_counter())
            )
            style = STATUS_STYLE.get(outcome.status, "white")
            description = f"[{style}]{outcome.source_id}: {outcome.status}[/]"
            progress.update(tasks[outcome.source_id], completed=1, total=1, description=description)
            progress.stop_task(tasks[outcome.source_id])

        outcomes = refresh_all(
            sources,
            db_path=db,
            archive=archive,
            fetcher=fetcher,
            max_sources=sources_file.concurrency.max_sources,
            on_phase=on_phase,
            on_done=on_done,
        )
    # A full refresh also lands the in-repo reference files; not when nothing could be fetched (no network),
    # so that summary stays the plain "no network?" one.
    if len(selected) == len(sources_file.sources) and not no_network(outcomes):
        from pipelines.refresh.references import land_references

        references = land_references(db, archive)
        done += references
        outcomes += references
    failpoint("publish-start")  # stop tests signal here: every source landed, the snapshot not begun
    return RefreshReport(outcomes, seconds, published=publish_snapshot(db))


def finish_refresh(report: RefreshReport, declared: SourcesFile, db: Path, console: Console, scope: StopScope) -> None:
    """The change notification (skipped when stopped), then the log and the summary with every further signal
    held: they are the report of the run, stopped or not, and a second Ctrl-C must not cut them short."""
    if report.published is not None and report.stopped_by is None:
        from pipelines.orchestration.notify import notify_changes

        try:
            report.notes += notify_changes(db, declared.notify).messages  # never raises an error of its own
        except BaseException as exc:
            if as_stop(exc) is None:
                raise
            report.notes.append("change notification not sent: the refresh was stopped first")
    scope.shield()
    if report.stopped_by is None:
        report.stopped_by = scope.signal_number  # a signal while notifying, or once the work was done
    report.log_path = write_log(report, db)
    print_summary(report, db, console)
    if report.fault is not None:
        raise report.fault  # after the summary: the CLI names it with its exit code and hint


@contextlib.contextmanager
def _progress(console: Console) -> Iterator[Progress]:
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        yield progress
