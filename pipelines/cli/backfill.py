"""`ratecard backfill pricelist`: land the EC2 offer's past versions as history from their effective dates."""

from __future__ import annotations

import contextlib
import time
from datetime import date
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from pipelines.cli import backfill_captures
from pipelines.cli.options import RefreshWaitOption, SourcesOption, WriteOption
from pipelines.cli.reporting import Mistake
from pipelines.cli.terminal import quiet_libraries
from pipelines.sources.locations import DEFAULT_SOURCES_FILE
from warehouse.files import DEFAULT_DB_PATH

if TYPE_CHECKING:
    from pipelines.pricelist.steps.backfill import BackfillReport, VersionOutcome
    from pipelines.sources.file import SourceSpec

backfill_app = typer.Typer(help="Land history that predates ratecard from the sources' own archives.")
STATUS_STYLE = {"landed": "green", "unchanged": "dim", "quarantined": "red", "fetch_failed": "red"}


def parse_since(text: str | None) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a date (YYYY-MM-DD)", param_hint="--since") from None


def unit_line(done: VersionOutcome) -> str:
    outcome = done.outcome
    style = STATUS_STYLE.get(outcome.status, "white")
    status = "already backfilled" if outcome.status == "unchanged" and outcome.fetch_id is None else outcome.status
    line = f"{done.version} {done.region_code}: [{style}]{status}[/]"
    if outcome.fetch_id is not None and outcome.error is None:
        line += f" ({outcome.inserted} rows added, {outcome.closed} closed)"
    if outcome.error is not None:
        line += f": {outcome.error}"
    return line


def summary(report: BackfillReport) -> Table:
    table = Table(title=f"{report.source_id}: offer versions backfilled")
    for column in ("version", "in effect from", "to", "regions landed", "rows added"):
        table.add_column(column, justify="right" if column.startswith(("regions", "rows")) else "left")
    for version in report.versions:
        units = [u for u in report.units if u.version == version.version]
        landed = sum(u.outcome.status == "landed" for u in units)
        ends = version.effective_to.date().isoformat() if version.effective_to else "(current)"
        added = sum(u.outcome.inserted for u in units)
        table.add_row(version.version, version.effective_from.date().isoformat(), ends, str(landed), str(added))
    return table


def declared_index(sources_file: Path) -> tuple[SourceSpec, int]:
    """The EC2 price-list region index the sources file declares, and its per-host limit: read before anything
    is created, so a bad sources file leaves nothing behind."""
    from pipelines.pricelist.steps.backfill import ec2_region_indexes
    from pipelines.sources.file import load_sources_file

    declared = load_sources_file(sources_file)
    indexes = ec2_region_indexes(declared.sources)
    if not indexes:
        raise typer.BadParameter(f"{sources_file} declares no EC2 price-list region index", param_hint="--sources")
    return indexes[0], declared.concurrency.per_host


def run(
    index: SourceSpec,
    per_host: int,
    db: Path,
    console: Console,
    *,
    since: date | None,
    regions: list[str] | None,
    offline: bool,
    wait: float,
) -> BackfillReport:
    from pipelines.fetch.archive import Archive
    from pipelines.fetch.http import Fetcher, FetchSettings
    from pipelines.fetch.offline import pointed_at, serve_directory
    from pipelines.pricelist.steps.backfill import backfill_pricelist
    from warehouse.target import local_dir

    with contextlib.ExitStack() as stack:
        source = pointed_at([index], stack.enter_context(serve_directory()))[0] if offline else index
        fetcher = stack.enter_context(Fetcher(FetchSettings(per_host_limit=per_host)))
        return backfill_pricelist(
            source,
            fetcher=fetcher,
            db_path=db,
            archive=Archive(local_dir(db) / "archive"),
            since=since,
            regions=regions,
            lock_wait_s=wait,
            on_unit=lambda done: console.print(unit_line(done), soft_wrap=True),
        )


def register(app: typer.Typer, console: Console) -> None:
    @backfill_app.command("pricelist")
    def pricelist(
        since: Annotated[
            str | None, typer.Option("--since", help="Only versions in effect on or after this date (YYYY-MM-DD).")
        ] = None,
        region: Annotated[list[str] | None, typer.Option("--region", help="Only this region (repeatable).")] = None,
        offline: Annotated[bool, typer.Option("--offline", help="Serve the bundled samples on 127.0.0.1.")] = False,
        sources_file: SourcesOption = DEFAULT_SOURCES_FILE,
        db: WriteOption = DEFAULT_DB_PATH,
        wait: RefreshWaitOption = 60.0,
    ) -> None:
        """Fetch every past version of the EC2 offer (each region's file) and land it as history from the date it
        took effect. Resumable and idempotent: versions landed before are skipped."""
        quiet_libraries()
        from pipelines.cli.stopping import stops_cleanly
        from pipelines.refresh.logged import logged_in
        from warehouse.db import connect, writable_location
        from warehouse.lock import exclusive_refresh
        from warehouse.publish import publish_snapshot
        from warehouse.queries import last_fetch_id

        index, per_host = declared_index(sources_file)
        since_date = parse_since(since)
        writable_location(db)
        with connect(db, wait_s=wait) as con:  # created (with its schema) or refused here, in one line
            mark = last_fetch_id(con)
        from pipelines.errors import SourceError

        started = time.perf_counter()
        with stops_cleanly("backfill pricelist", db, console, partial(logged_in, db, mark)):
            try:
                report = run(index, per_host, db, console, since=since_date, regions=region, offline=offline, wait=wait)
            except SourceError as exc:  # the version index itself: nothing can be backfilled without it
                raise Mistake(
                    str(exc), "nothing can be backfilled without the version index: run again later", code=1
                ) from None
            with exclusive_refresh(db, wait_s=wait):
                published = publish_snapshot(db)
        console.print(summary(report))
        for error in report.errors:
            console.print(f"[red]{error}[/]", soft_wrap=True)
        seconds = time.perf_counter() - started
        console.print(f"{report.inserted} rows added in {seconds:.1f} s; published {published}")
        if report.errors or report.failed:
            raise typer.Exit(code=1)

    backfill_captures.register(backfill_app, console)
    app.add_typer(backfill_app, name="backfill")
