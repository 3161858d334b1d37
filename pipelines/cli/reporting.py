"""How every `ratecard` command ends when something is wrong: one red line, one hint, a documented exit code.

A problem the user can fix (a bad sources file, a database that is not ratecard's, a port already taken, an
argument out of range) is reported by its type (USER_ERRORS) or carries its own code and hint (Mistake); anything
else is a bug, reported in one line as such. A reader that closes the output early (`ratecard show | head`) is
not a problem at all: the command stops quietly with 141, as a program killed by SIGPIPE would (help text, which
click prints through its own console, stops with 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

from pipelines.cli.faults import DiskFull, PathNotWritable, machine_fault
from pipelines.cli.terminal import EXIT_CLOSED_PIPE, closed_pipe
from pipelines.dashboard import DashboardError, PortTaken
from pipelines.errors import SourcesFileError
from pipelines.offers.names import UnknownName
from pipelines.pilots.errors import PilotInputError
from warehouse.files import (
    DamagedDuckDBFile,
    LakeCatalogMissing,
    NewerDuckDBFile,
    NotADuckDBFile,
    ObjectStoreMisconfigured,
    WarehouseBusy,
    WarehouseMissing,
    WarehouseUnreachable,
    WarehouseUnwritable,
)
from warehouse.lock import RefreshLocked

EXIT_USAGE = 2
EXIT_UNWRITABLE = 7
EXIT_BUG = 70  # EX_SOFTWARE (sysexits.h)
EXIT_CODES = {
    0: "success",
    1: "a source failed (its previous version stays current), or reparse rolled a source back (today's parser "
    "refuses fetches that landed: its rows stay as they were), or show/reparse found no database yet, or history "
    "found no prices under that name, or pilot costs no such workload",
    EXIT_USAGE: "usage: an unknown option, command or --source id, or a value out of range or empty, or a name find "
    "does not know (accelerator, region, price kind, provider)",
    3: "another refresh of this database is running",
    4: "bad sources file: missing, not TOML, or a field wrong (file:line and field named)",
    5: "the database is not a DuckDB file, or is damaged (cut short, or its WAL cannot be replayed), or was written "
    "by a newer DuckDB",
    6: "the database is locked by another program",
    EXIT_UNWRITABLE: "a path the command writes cannot be written: the database path is a directory or in a "
    "directory not writable, or --out names a file, or the file system is read-only or full",
    8: "bad pilot or plan input (ratecard pilot): the row and field named; nothing landed",
    9: "the DuckLake warehouse's PostgreSQL catalog cannot be reached, or its database does not exist",
    10: "serve or samples serve: the port is taken by another program, or not allowed",
    EXIT_BUG: "an unexpected error: a bug in ratecard (rerun with --debug for the traceback)",
    130: "stopped by Ctrl-C (SIGINT); what landed stays landed",
    EXIT_CLOSED_PIPE: "the output's reader closed it early (e.g. `| head`): nothing is wrong (help text cut "
    "short ends with 1, as click's own)",
    143: "stopped by SIGTERM; what landed stays landed",
}


class Mistake(Exception):
    """A value a command cannot use, with what to do about it and its exit code (default: usage, 2)."""

    def __init__(self, message: str, hint: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.hint = hint
        self.code = code


def folder_to_write(option: str, out: Path, holds: str) -> Path:
    """`out`, refused when it names a file: the command writes a folder of `holds` there."""
    if out.exists() and not out.is_dir():
        raise Mistake(
            f"{option} {out} is a file: the command writes a folder ({holds})",
            "name a new folder, or the folder of an earlier run to replace its files",
            code=EXIT_UNWRITABLE,
        )
    return out


# Each user error: its exit code and what to do about it. The first match wins: subclasses come first.
USER_ERRORS: dict[type[Exception], tuple[int, str]] = {
    WarehouseMissing: (1, "run `ratecard refresh` first (or point --db at an existing database)"),
    RefreshLocked: (3, "wait for it to finish, or pass --wait SECONDS to queue behind it"),
    SourcesFileError: (4, "correct the file there (pipelines/sources.toml shows every field), or pass --sources FILE"),
    DamagedDuckDBFile: (
        5,
        "its published snapshot (NAME.snapshot.duckdb beside it) holds what was last published: move the damaged "
        "file and its .wal aside and copy the snapshot in its place; or move them away and refresh makes a new one",
    ),
    NotADuckDBFile: (5, "point --db at a ratecard database, or move this file away: refresh creates a new one"),
    NewerDuckDBFile: (
        5,
        "made by ratecard on DuckDB 2.0? its published snapshot (NAME.snapshot.duckdb beside it) holds every table "
        "in a format this DuckDB reads: move the file aside and copy the snapshot in its place; else point --db "
        "at another file",
    ),
    LakeCatalogMissing: (
        9,
        "create it (createdb NAME, or CREATE DATABASE NAME in psql) and run the command again: DuckLake makes its "
        "tables there itself; or correct dbname in RATECARD_WAREHOUSE",
    ),
    ObjectStoreMisconfigured: (
        9,
        "set the variable named (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL, RATECARD_S3_URL_STYLE: "
        "docs/DEPLOY.md) and run the command again",
    ),
    WarehouseUnreachable: (9, "start the catalog's PostgreSQL server, or correct the conninfo in RATECARD_WAREHOUSE"),
    WarehouseBusy: (6, "close the program holding it (PID above), or pass --wait SECONDS"),
    WarehouseUnwritable: (EXIT_UNWRITABLE, "point --db at a file in a directory you can write"),
    DiskFull: (
        EXIT_UNWRITABLE,
        "free space on that disk (df -h shows it) and run the command again: what was committed before stays",
    ),
    PathNotWritable: (EXIT_UNWRITABLE, "name a path on a writable file system (--out, --db), or remount it read-write"),
    PortTaken: (10, "pass another --port, or --port 0 for any free one"),
    DashboardError: (1, "do what the message says, then run the command again"),
    UnknownName: (
        EXIT_USAGE,
        "use one of the names above; every accelerator name is in the accelerator_names view, and --region any or "
        "--kind all drop those filters",
    ),
    PilotInputError: (8, "correct the rows named (offering names: the offering_prices view) and run it again"),
}
EPILOG = "Exit codes:\n\n" + "\n".join(f"- {code}: {meaning}" for code, meaning in EXIT_CODES.items())


def code_and_hint(exc: Exception) -> tuple[int, str]:
    exc = machine_fault(exc) or exc
    if isinstance(exc, Mistake):
        return exc.code, exc.hint
    return next(((c, h) for kind, (c, h) in USER_ERRORS.items() if isinstance(exc, kind)), (EXIT_BUG, ""))


def report(exc: Exception, errors: Console) -> int:
    """One red line naming the problem (a fault of the machine by its name and path), one hint line; returns the
    exit code."""
    exc = machine_fault(exc) or exc
    message = " ".join(str(exc).split())  # one line, whatever the message carried
    code, hint = code_and_hint(exc)
    if code == EXIT_BUG:
        message = (
            f"unexpected {type(exc).__name__}: {message}. This is a bug in ratecard: rerun the same "
            "command with --debug for the traceback, and report it"
        )
    errors.print(Text(f"error: {message}", style="red"), soft_wrap=True)
    if hint:
        errors.print(Text(f"hint: {hint}", style="dim"), soft_wrap=True)
    return code


class ReportingGroup(TyperGroup):
    """The one place errors become output: without --debug no traceback ever reaches the user."""

    # Any: the base class types ctx with typer's private vendored click Context, which is not ours to import.
    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:  # `ratecard --help | head` prints its help here, before any command runs
            return super().make_context(*args, **kwargs)
        except BrokenPipeError:
            raise closed_pipe() from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort):
            raise  # deliberate exits already speak for themselves
        except typer.TyperException:
            raise  # usage errors (exit 2) are shown by click
        except BrokenPipeError:
            raise closed_pipe() from None
        except Exception as exc:
            if ctx.params.get("debug"):
                raise
            raise typer.Exit(code=report(exc, Console(stderr=True))) from None
