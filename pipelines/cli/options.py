"""The one option every command that opens the warehouse shares: which warehouse (a file or a lake)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from warehouse.target import WAREHOUSE_ENV

if TYPE_CHECKING:
    from pipelines.sources.file import SourceSpec


def named_path(value: str | Path) -> Path:
    """A path the user typed, refused when empty: `Path("")` is the current folder, where nobody meant to write."""
    if isinstance(value, Path):  # a default, already a path
        return value
    if not value.strip():
        raise typer.BadParameter("is empty: name a file or folder")
    return Path(value)


def warehouse_option(reads: str) -> Any:  # typer.Option is typed Any
    """`--warehouse` (alias `--db`, env RATECARD_WAREHOUSE): a DuckDB file or `ducklake:postgres:<conninfo>`."""
    return typer.Option(
        "--warehouse",
        "--db",
        envvar=WAREHOUSE_ENV,
        parser=named_path,
        help=f"DuckDB file, or `ducklake:postgres:CONNINFO` (data in `$RATECARD_LAKE_DATA_PATH`); {reads}.",
    )


WriteOption = Annotated[Path, warehouse_option("written")]
SnapshotReadOption = Annotated[Path, warehouse_option("a file's published snapshot is read when present")]
ReadOption = Annotated[Path, warehouse_option("read")]
SourcesOption = Annotated[
    Path, typer.Option("--sources", parser=named_path, help="Sources file (replaces the bundled one).")
]


def selected_sources(declared: list[SourceSpec], wanted: list[str] | None) -> list[SourceSpec]:
    """The sources to run, in sources-file order; an unknown id is a usage error listing the declared ones."""
    unknown = sorted(set(wanted or []) - {s.id for s in declared})
    if unknown:
        raise typer.BadParameter(
            f"unknown source id(s) {unknown}; declared: {[s.id for s in declared]}", param_hint="--source"
        )
    return [s for s in declared if not wanted or s.id in wanted]


# Seconds a command that writes waits for a refresh holding the warehouse.
RefreshWaitOption = Annotated[
    float, typer.Option("--wait", min=0, help="Seconds to wait for a refresh holding the warehouse.")
]
