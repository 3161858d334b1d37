"""The one option every command that opens the warehouse shares: which warehouse (a file or a lake)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from warehouse.target import WAREHOUSE_ENV


def warehouse_option(reads: str) -> Any:  # typer.Option is typed Any
    """`--warehouse` (alias `--db`, env RATECARD_WAREHOUSE): a DuckDB file or `ducklake:postgres:<conninfo>`."""
    return typer.Option(
        "--warehouse",
        "--db",
        envvar=WAREHOUSE_ENV,
        help=f"DuckDB file, or `ducklake:postgres:CONNINFO` (data in `$RATECARD_LAKE_DATA_PATH`); {reads}.",
    )


WriteOption = Annotated[Path, warehouse_option("written")]
SnapshotReadOption = Annotated[Path, warehouse_option("a file's published snapshot is read when present")]
ReadOption = Annotated[Path, warehouse_option("read")]
