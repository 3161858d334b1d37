"""`ratecard`: refresh the warehouse, show its views, re-parse archived pages."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from pipelines.show import wide_console
from pipelines.sources import DEFAULT_SOURCES_FILE, load_sources
from warehouse.db import DEFAULT_DB_PATH
from warehouse.lock import RefreshLocked, exclusive_refresh

app = typer.Typer(help="AWS accelerator and GPU prices, validated and versioned in DuckDB.", no_args_is_help=True)
console = wide_console()

DbOption = Annotated[Path, typer.Option("--db", help="DuckDB file to write.")]
SourcesOption = Annotated[Path, typer.Option("--sources", help="Sources file (replaces the bundled one).")]
STATUS_STYLE = {"landed": "green", "unchanged": "cyan", "quarantined": "red", "fetch_failed": "red", "failed": "red"}


def _quiet_libraries() -> None:
    # GE and Dagster log progress bars and banners that would drown the progress display.
    os.environ.setdefault("TQDM_DISABLE", "1")
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")


@app.command()
def refresh(
    offline: Annotated[bool, typer.Option("--offline", help="Serve the bundled samples on 127.0.0.1.")] = False,
    sources_file: SourcesOption = DEFAULT_SOURCES_FILE,
    db: DbOption = DEFAULT_DB_PATH,
    source: Annotated[list[str] | None, typer.Option("--source", help="Only this source id (repeatable).")] = None,
    wait: Annotated[float, typer.Option("--wait", help="Seconds to wait for a refresh already running.")] = 0.0,
) -> None:
    """Fetch, validate and land every source (or --source ones), refresh the views, publish the snapshot."""
    _quiet_libraries()
    with contextlib.ExitStack() as stack:
        try:  # before the seconds of importing Dagster: a refused refresh says so at once
            stack.enter_context(exclusive_refresh(db, wait_s=wait))
        except RefreshLocked as exc:
            console.print(f"[red]{exc}[/]")
            raise typer.Exit(code=3) from exc
        _refresh_locked(offline, sources_file, db, source)


def _refresh_locked(offline: bool, sources_file: Path, db: Path, source: list[str] | None) -> None:
    from pipelines.definitions import build_definitions
    from pipelines.offline import serve_directory
    from pipelines.runner import instance_for_cli, run_sources

    declared = [s.id for s in load_sources(sources_file)]
    unknown = sorted(set(source or []) - set(declared))
    if unknown:
        raise typer.BadParameter(f"unknown source id(s) {unknown}; declared: {declared}", param_hint="--source")
    selected = [s for s in declared if not source or s in source]
    with contextlib.ExitStack() as stack:
        base_url = stack.enter_context(serve_directory()) if offline else ""
        defs = build_definitions(sources_file, db, offline_base_url=base_url)
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                      console=console, transient=False) as progress:
            tasks = {sid: progress.add_task(f"[dim]{sid}: waiting", start=False) for sid in selected}

            def started(sid: str) -> None:
                progress.start_task(tasks[sid])
                progress.update(tasks[sid], description=f"{sid}: fetching, validating, landing")

            def done(run) -> None:
                style = STATUS_STYLE.get(run.status, "white")
                progress.update(tasks[run.source_id], completed=1, total=1,
                                description=f"[{style}]{run.source_id}: {run.status}[/]")
                progress.stop_task(tasks[run.source_id])

            runs, views_ok = run_sources(defs, selected, instance=instance_for_cli(), on_start=started, on_done=done)
    _print_summary(runs, views_ok, db)
    if not all(r.ok for r in runs) or not views_ok:
        raise typer.Exit(code=1)


def _print_summary(runs, views_ok: bool, db: Path) -> None:
    table = Table(title=f"Refresh of {db}", show_lines=False)
    for name in ("source", "outcome", "opened", "closed", "unchanged", "seconds", "detail"):
        table.add_column(name, justify="right" if name in ("opened", "closed", "unchanged", "seconds") else "left")
    for run in runs:
        style = STATUS_STYLE.get(run.status, "white")
        table.add_row(run.source_id, f"[{style}]{run.status}[/]", str(run.inserted), str(run.closed),
                      str(run.unchanged), f"{run.seconds:.2f}", run.message[:300])
    console.print(table)
    landed = sum(r.status == "landed" for r in runs)
    unchanged = sum(r.status == "unchanged" for r in runs)
    failed = len(runs) - landed - unchanged
    console.print(f"{landed} landed, {unchanged} unchanged, {failed} failed; views "
                  + ("refreshed, snapshot published" if views_ok else "[red]not refreshed[/]"))


@app.command()
def show(db: DbOption = DEFAULT_DB_PATH) -> None:
    """Print the headline views: AWS prices per instance-hour and per accelerator-hour, and source freshness."""
    from pipelines.show import print_headline

    if not db.exists():
        console.print(f"[red]{db} does not exist yet: run `ratecard refresh` first.[/]")
        raise typer.Exit(code=1)
    print_headline(console, db)


@app.command()
def reparse(
    sources_file: SourcesOption = DEFAULT_SOURCES_FILE,
    db: DbOption = DEFAULT_DB_PATH,
    source: Annotated[list[str] | None, typer.Option("--source", help="Only this source id (repeatable).")] = None,
) -> None:
    """Re-parse every archived body of the sources with today's parsers and rebuild their history."""
    _quiet_libraries()
    from pipelines.archive import Archive
    from pipelines.reparse import reparse_source

    from warehouse.publish import publish_snapshot

    archive = Archive(db.parent / "archive")
    with exclusive_refresh(db, wait_s=60):
        for spec in load_sources(sources_file):
            if source and spec.id not in source:
                continue
            result = reparse_source(spec, db_path=db, archive=archive)
            console.print(f"{spec.id}: {result.fetches} fetches replayed: {result.landed} landed, "
                          f"{result.unchanged} unchanged, {result.quarantined} quarantined")
        console.print(f"published {publish_snapshot(db)}")


if __name__ == "__main__":
    app()
