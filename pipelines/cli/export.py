"""`ratecard export`: every public view and the history tables as Parquet or CSV files, with a manifest."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pipelines.cli.options import SnapshotReadOption, named_path
from pipelines.cli.reporting import folder_to_write
from warehouse.files import DEFAULT_DB_PATH, WarehouseMissing
from warehouse.target import exists


class ExportFormat(StrEnum):
    parquet = "parquet"
    csv = "csv"


def register(app: typer.Typer, console: Console) -> None:
    @app.command()
    def export(
        out: Annotated[
            Path, typer.Option("--out", parser=named_path, help="Folder to write the files and manifest.json into.")
        ],
        fmt: Annotated[ExportFormat, typer.Option("--format", help="parquet (DECIMAL kept) or csv.")] = (
            ExportFormat.parquet
        ),
        db: SnapshotReadOption = DEFAULT_DB_PATH,
    ) -> None:
        """Write every public view, and the history tables partitioned by fetch date, with manifest.json."""
        from warehouse.export import export_warehouse
        from warehouse.publish import readable

        source = readable(db)
        if not exists(source):
            raise WarehouseMissing(db, "does not exist yet")
        manifest = export_warehouse(source, folder_to_write("--out", out, "its files and manifest.json"), fmt.value)
        rows = sum(f["rows"] for f in manifest["files"])
        console.print(f"exported {len(manifest['files'])} views and tables ({rows} rows) from {source} to {out}")
        console.print(f"manifest: {out / 'manifest.json'} (snapshot {manifest['snapshot']['publish_id']})")
