"""`ratecard`: refresh the warehouse, show its views, re-parse archived pages.

A problem the user can fix (a bad sources file, a database that is not ratecard's, held or unwritable) ends
the command with one red line naming the file and the problem, a hint, and its own exit code (EXIT_CODES, in
pipelines.cli.reporting); anything else is a bug, reported in one line as such. `--debug` shows the traceback.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipelines.cli import agents as cli_agents
from pipelines.cli import backfill as cli_backfill
from pipelines.cli import changes as cli_changes
from pipelines.cli import dashboard as cli_dashboard
from pipelines.cli import decide as cli_decide
from pipelines.cli import doctor as cli_doctor
from pipelines.cli import export as cli_export
from pipelines.cli import find as cli_find
from pipelines.cli import lake as cli_lake
from pipelines.cli import pilot as cli_pilot
from pipelines.cli import samples as cli_samples
from pipelines.cli import where as cli_where
from pipelines.cli.formats import FormatOption, OutputFormat, OutputOption, WideOption, check_output
from pipelines.cli.options import SnapshotReadOption, SourcesOption, WriteOption, selected_sources
from pipelines.cli.process import skip_the_exit_collection
from pipelines.cli.reporting import EPILOG, ReportingGroup
from pipelines.cli.show_columns import ShowTable
from pipelines.cli.terminal import quiet_libraries, wide_console
from pipelines.sources.locations import DEFAULT_SOURCES_FILE
from schemas.gx_warm_up import warm_up_in_background
from warehouse.files import DEFAULT_DB_PATH, WarehouseMissing
from warehouse.lock import exclusive_refresh
from warehouse.target import exists, local_dir

# Only light modules above: `ratecard --help` and `ratecard show` must start fast, so pydantic, DuckDB, Great
# Expectations and Dagster are imported by the commands that use them.
if TYPE_CHECKING:
    from pipelines.refresh.threads import StopScope
    from pipelines.sources.file import SourceSpec

app = typer.Typer(
    help="AWS accelerator and GPU prices, validated and versioned in DuckDB.",
    no_args_is_help=True,
    cls=ReportingGroup,
    epilog=EPILOG,
    rich_markup_mode="markdown",
)
console = wide_console()
cli_dashboard.register(app, console)

DbOption = WriteOption
SourceIdsOption = Annotated[list[str] | None, typer.Option("--source", help="Only this source id (repeatable).")]
WAIT_HELP = "Seconds to wait for a refresh already running, or a program holding the database."


@app.callback()
def main(debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of any error.")] = False) -> None:
    """AWS accelerator and GPU prices, validated and versioned in DuckDB."""
    skip_the_exit_collection()


@app.command()
def refresh(
    offline: Annotated[bool, typer.Option("--offline", help="Serve the bundled samples on 127.0.0.1.")] = False,
    sources_file: SourcesOption = DEFAULT_SOURCES_FILE,
    db: DbOption = DEFAULT_DB_PATH,
    source: SourceIdsOption = None,
    wait: Annotated[float, typer.Option("--wait", min=0, help=WAIT_HELP)] = 0.0,
    deadline: Annotated[
        float | None,
        typer.Option(
            "--deadline",
            min=1,
            help="Seconds after which no fetch runs: outstanding ones fail, named (default: the sources file's "
            "[fetch] deadline_s, 1800).",
        ),
    ] = None,
) -> None:
    """Fetch, validate and land every source (or --source ones), refresh the views, publish the snapshot.

    Sources are fetched, parsed and validated concurrently (the sources file's [concurrency]) and land one at a
    time, FX first. Ctrl-C or SIGTERM stops the whole refresh (exit 130 / 143) with nothing half-landed.
    """
    quiet_libraries()
    from pipelines.refresh.threads import signals_stop

    # From the first line a signal stops the refresh at whatever it is doing, and it still ends with its report.
    with signals_stop(signal.SIGTERM, signal.SIGINT) as scope:
        try:
            code = refresh_stoppably(sources_file, db, source, wait, offline, deadline, scope)
        except BaseException as exc:
            from pipelines.cli.stopping import stopped_before_the_refresh

            stopped_before_the_refresh(exc, scope, console)  # raises: an Exit for a stop, else `exc`
    if code:
        raise typer.Exit(code=code)


def refresh_stoppably(
    sources_file: Path,
    db: Path,
    source: list[str] | None,
    wait: float,
    offline: bool,
    deadline: float | None,
    scope: StopScope,
) -> int:
    """The refresh command's work under its stop scope; its exit code."""
    from pipelines.sources.file import load_sources_file
    from warehouse.db import writable_location

    declared = load_sources_file(sources_file)
    selected = selected_sources(declared.sources, source)
    # All before the seconds of importing Great Expectations: a refused refresh says so at once.
    writable_location(db)
    warm_up_in_background()  # Great Expectations loads while the warehouse opens and the refresh imports
    with exclusive_refresh(db, wait_s=wait):
        mark = usable_database(db, wait)
        from pipelines.cli.refresh import finish_refresh, run_refresh
        from warehouse.failpoints import failpoint

        failpoint("opened")  # stop tests signal here: the warehouse open, nothing fetched yet

        report = run_refresh(declared, selected, db, console, offline=offline, mark=mark, deadline_s=deadline)
        finish_refresh(report, declared, db, console, scope)
    return report.exit_code


def usable_database(db: Path, wait: float) -> int:
    """Open the file once, read-write (creating it and its schema), so a file that is not ratecard's, or is held,
    is refused here in one line instead of failing every source. Returns the last fetch id logged so far."""
    from warehouse.db import connect
    from warehouse.queries import last_fetch_id

    with connect(db, wait_s=wait) as con:
        return last_fetch_id(con)


@app.command()
def show(
    fmt: FormatOption = OutputFormat.table,
    output: OutputOption = None,
    table: Annotated[
        ShowTable | None, typer.Option("--table", help="Only this table; csv and parquet write one table.")
    ] = None,
    wide: WideOption = False,
    db: SnapshotReadOption = DEFAULT_DB_PATH,
    wait: Annotated[
        float, typer.Option("--wait", min=0, help="Seconds to wait for a program holding the database.")
    ] = 30.0,
) -> None:
    """Print the headline views: AWS prices per instance-hour and per accelerator-hour, and source freshness."""
    from pipelines.cli.show import print_headline, write_headline

    check_output(fmt, output, f"{table or 'aws_prices'}.parquet")
    if not exists(db):
        raise WarehouseMissing(db, "does not exist yet")
    if fmt is OutputFormat.table:
        print_headline(console, db, wait_s=wait, wide=wide, only=table)
    else:
        write_headline(db, fmt, output, table, wait)


@app.command()
def reparse(
    sources_file: SourcesOption = DEFAULT_SOURCES_FILE,
    db: DbOption = DEFAULT_DB_PATH,
    source: SourceIdsOption = None,
    wait: Annotated[float, typer.Option("--wait", min=0, help=WAIT_HELP)] = 60.0,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Accept a rebuild that leaves a source fewer current rows because fetches that landed before are "
            "now refused (without it, that source is rolled back and the command exits 1).",
        ),
    ] = False,
) -> None:
    """Re-parse every archived body of the sources with today's parsers and rebuild their history.

    A source whose rebuild would lose current rows to fetches that landed before and are now refused keeps its
    rows as they were; the others are rebuilt and published.
    """
    quiet_libraries()
    from pipelines.sources.file import load_sources
    from warehouse.db import writable_location

    selected = selected_sources(load_sources(sources_file), source)
    if not exists(db):
        raise WarehouseMissing(db, "does not exist yet")
    from pipelines.fetch.archive import Archive

    archive = Archive(local_dir(db) / "archive")
    writable_location(db)
    warm_up_in_background()  # Great Expectations loads while the warehouse opens and the refresh imports
    with exclusive_refresh(db, wait_s=wait):
        usable_database(db, wait)
        from pipelines.cli.reparse import reparse_all

        code = reparse_all(replayed_units(selected, db), db, archive, console, force=force)
    if code:
        raise typer.Exit(code=code)


def replayed_units(selected: list[SourceSpec], db: Path) -> list[SourceSpec]:
    """The sources to re-parse: a price-list source stands for each of its regions that has a fetch logged."""
    from pipelines.refresh.fan_out import logged_units, reads_index
    from warehouse.db import connect

    with connect(db) as con:
        return [unit for spec in selected for unit in (logged_units(con, spec) if reads_index(spec) else [spec])]


# Each further command lives in its own module (kept light at import: `--help` loads them all).
for _commands in (
    cli_find,
    cli_where,
    cli_export,
    cli_changes,
    cli_pilot,
    cli_decide,
    cli_backfill,
    cli_samples,
    cli_doctor,
    cli_agents,
    cli_lake,
):
    _commands.register(app, console)

if __name__ == "__main__":
    app()
