"""`ratecard lake maintain`: keep a DuckLake's data path small (compact, expire old snapshots, delete files no
snapshot needs; warehouse/lake_maintenance.py says what and why). A DuckDB file needs none: publishing compacts it."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from pipelines.cli.options import WriteOption
from pipelines.cli.reporting import Mistake
from warehouse.files import DEFAULT_DB_PATH
from warehouse.target import is_lake

DEFAULT_KEEP_DAYS = 30.0  # a month of snapshots to attach as they stood (a published SNAPSHOT_VERSION)
DEFAULT_GRACE_HOURS = 24.0  # no writer uploads, and no reader scans one snapshot, for a day
lake_app = typer.Typer(help="A DuckLake warehouse's upkeep.")


def register(app: typer.Typer, console: Console) -> None:
    app.add_typer(lake_app, name="lake")

    @lake_app.command("maintain")
    def maintain(
        db: WriteOption = DEFAULT_DB_PATH,
        keep_days: Annotated[
            float, typer.Option("--keep-days", min=0, help="Keep the snapshots of this many days (time travel).")
        ] = DEFAULT_KEEP_DAYS,
        grace_hours: Annotated[
            float,
            typer.Option(
                "--grace-hours",
                min=0,
                help="Delete a file no snapshot needs only once this old: a writer may be uploading it, a reader "
                "scanning it.",
            ),
        ] = DEFAULT_GRACE_HOURS,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Change nothing; count what would go.")] = False,
    ) -> None:
        """Merge small files, expire snapshots older than --keep-days, delete files no snapshot references."""
        if not is_lake(db):
            raise Mistake(
                f"--warehouse {db} is a DuckDB file: `lake maintain` keeps a DuckLake",
                "a DuckDB file needs no upkeep (publishing writes it compacted); name a ducklake: location",
            )
        from warehouse.db import connect
        from warehouse.lake_maintenance import maintain_lake

        with connect(db) as con:
            report = maintain_lake(con, keep_days=keep_days, grace_hours=grace_hours, dry_run=dry_run)
        for line in report.lines():
            console.print(line, soft_wrap=True)
