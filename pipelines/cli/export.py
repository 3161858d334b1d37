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
from warehouse.object_store import is_object_store
from warehouse.target import exists


class ExportFormat(StrEnum):
    parquet = "parquet"
    csv = "csv"


def register(app: typer.Typer, console: Console) -> None:
    @app.command()
    def export(
        out: Annotated[
            str,
            typer.Option(
                "--out",
                help="Folder to write the files and manifest.json into, or s3://bucket/prefix/ (the AWS variables "
                "say how to reach it; manifest.json is written last).",
            ),
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
        target: Path | str = out if is_object_store(out) else named_path(out)
        if isinstance(target, Path):
            target = folder_to_write("--out", target, "its files and manifest.json")
        manifest = export_warehouse(source, target, fmt.value)
        rows = sum(f["rows"] for f in manifest["files"])
        console.print(f"exported {len(manifest['files'])} views and tables ({rows} rows) from {source} to {target}")
        where = f"{out.rstrip('/')}/manifest.json" if isinstance(target, str) else target / "manifest.json"
        console.print(f"manifest: {where} (snapshot {manifest['snapshot']['publish_id']})")
