"""`ratecard backfill captures`: land the dated captures others made of the sources' pages (pipelines/captures.toml)
into the sources' history, each at its capture time."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from pipelines.cli.options import RefreshWaitOption, SourcesOption, WriteOption
from pipelines.cli.reporting import Mistake
from pipelines.cli.terminal import quiet_libraries
from pipelines.sources.locations import DEFAULT_CAPTURES_FILE, DEFAULT_SOURCES_FILE
from warehouse.files import DEFAULT_DB_PATH

if TYPE_CHECKING:
    from pipelines.refresh.captures import CaptureOutcome
    from pipelines.sources.captures import CaptureSet
    from pipelines.sources.file import SourceSpec

STATUS_STYLE = {"landed": "green", "unchanged": "dim", "quarantined": "red", "fetch_failed": "red"}


def capture_line(done: CaptureOutcome) -> str:
    outcome = done.outcome
    status = "already backfilled" if outcome.status == "unchanged" and outcome.fetch_id is None else outcome.status
    line = (
        f"{done.capture.captured_at:%Y-%m-%d %H:%M} {done.capture.id}: [{STATUS_STYLE.get(outcome.status)}]{status}[/]"
    )
    if outcome.fetch_id is not None and outcome.error is None:
        line += f" ({outcome.inserted} rows added, {outcome.closed} closed)"
    if outcome.error is not None:
        line += f": {outcome.error}"
    return line


def summary(done: list[CaptureOutcome]) -> Table:
    table = Table(title="captures backfilled")
    for column in ("capture set", "captures", "landed", "already", "refused", "rows added", "from", "to"):
        table.add_column(column, justify="left" if column in ("capture set", "from", "to") else "right")
    for name in dict.fromkeys(d.capture_set for d in done):
        mine = [d for d in done if d.capture_set == name]
        times = [d.capture.captured_at for d in mine]
        table.add_row(
            name,
            str(len(mine)),
            str(sum(d.outcome.status in ("landed", "unchanged") and d.outcome.fetch_id is not None for d in mine)),
            str(sum(d.outcome.fetch_id is None and d.outcome.error is None for d in mine)),
            str(sum(d.outcome.error is not None for d in mine)),
            str(sum(d.outcome.inserted for d in mine)),
            f"{min(times):%Y-%m-%d}",
            f"{max(times):%Y-%m-%d}",
        )
    return table


def chosen(
    captures_file: Path, sources_file: Path, names: list[str] | None
) -> tuple[list[CaptureSet], dict[str, SourceSpec]]:
    """The capture sets asked for (all when none is named) and the sources they join, read before anything is
    created, so a bad file or name leaves nothing behind."""
    from pipelines.sources.captures import CapturesFileError, load_captures
    from pipelines.sources.file import load_sources

    try:
        sets = load_captures(captures_file)
    except CapturesFileError as exc:
        raise Mistake(str(exc), "fix the captures file", code=2) from None
    sources = {s.id: s for s in load_sources(sources_file)}
    unknown = [f"{s.id} (source {s.source})" for s in sets if s.source not in sources]
    if unknown:
        raise Mistake(f"{captures_file}: capture sets name sources {sources_file} does not declare: {unknown}",
                      "declare the source, or remove the capture set", code=2)  # fmt: skip
    if names:
        missing = sorted(set(names) - {s.id for s in sets})
        if missing:
            known = ", ".join(s.id for s in sets)
            raise Mistake(f"no capture set named {', '.join(missing)}", f"known: {known}", code=2)
        sets = [s for s in sets if s.id in names]
    return sets, sources


def register(backfill_app: typer.Typer, console: Console) -> None:
    @backfill_app.command("captures")
    def captures(
        capture_set: Annotated[
            list[str] | None, typer.Option("--set", help="Only this capture set (repeatable).")
        ] = None,
        captures_file: Annotated[
            Path, typer.Option("--captures", help="The captures file.", dir_okay=False)
        ] = DEFAULT_CAPTURES_FILE,
        sources_file: SourcesOption = DEFAULT_SOURCES_FILE,
        db: WriteOption = DEFAULT_DB_PATH,
        wait: RefreshWaitOption = 60.0,
    ) -> None:
        """Fetch the dated captures others made of the sources' pages and land each into its source's history at
        its capture time, flagged by capture id (backfilled_from). Idempotent: captures landed before are skipped,
        and a capture never overwrites what a daily fetch saw."""
        quiet_libraries()
        from pipelines.fetch.archive import Archive
        from pipelines.fetch.http import Fetcher
        from pipelines.refresh.captures import backfill_captures
        from warehouse.db import connect, writable_location
        from warehouse.lock import exclusive_refresh
        from warehouse.publish import publish_snapshot
        from warehouse.target import local_dir

        sets, sources = chosen(captures_file, sources_file, capture_set)
        writable_location(db)
        with connect(db, wait_s=wait):  # created (with its schema) or refused here, in one line
            pass
        started = time.perf_counter()
        with Fetcher() as fetcher:
            done = backfill_captures(
                sets,
                sources,
                fetcher=fetcher,
                db_path=db,
                archive=Archive(local_dir(db) / "archive"),
                lock_wait_s=wait,
                on_capture=lambda d: console.print(capture_line(d), soft_wrap=True),
            )
        with exclusive_refresh(db, wait_s=wait):
            published = publish_snapshot(db)
        console.print(summary(done))
        added = sum(d.outcome.inserted for d in done)
        console.print(f"{added} rows added in {time.perf_counter() - started:.1f} s; published {published}")
        if any(d.outcome.error is not None for d in done):
            raise typer.Exit(code=1)
