"""`ratecard dashboard` (write the static site from the snapshot) and `ratecard serve` (serve it on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pipelines.cli.options import SnapshotReadOption, named_path
from pipelines.cli.process import serve_until_stopped
from pipelines.cli.reporting import folder_to_write
from pipelines.dashboard import site_dir_for
from warehouse.files import DEFAULT_DB_PATH, WarehouseMissing
from warehouse.target import exists, is_lake

DEFAULT_SITE_DIR = Path(DEFAULT_DB_PATH).parent / "dashboard"


def register(app: typer.Typer, console: Console) -> None:
    """Add the two commands to the `ratecard` app (cli.py calls this once)."""

    @app.command()
    def dashboard(
        db: SnapshotReadOption = DEFAULT_DB_PATH,
        out: Annotated[
            Path | None,
            typer.Option("--out", parser=named_path, help="Folder to write (default: dashboard/ beside --db)."),
        ] = None,
    ) -> None:
        """Write the offline dashboard (static HTML, no network needed) from the published snapshot."""
        from pipelines.dashboard.build import build_dashboard
        from warehouse.publish import snapshot_path

        snapshot = db if is_lake(db) else snapshot_path(db)  # a lake is read as it stands: only commits show
        if not exists(snapshot) or not (is_lake(db) or snapshot.is_file()):
            raise WarehouseMissing(snapshot, "has not been published yet")
        target = folder_to_write("--out", out or site_dir_for(db), "the dashboard's pages")
        pages = build_dashboard(snapshot, target)
        console.print(f"wrote {len(pages)} pages to {target}; open {(target / 'index.html').resolve().as_uri()}")

    @app.command()
    def serve(
        site: Annotated[
            Path, typer.Option("--dir", parser=named_path, help="Site folder written by `ratecard dashboard`.")
        ] = DEFAULT_SITE_DIR,
        port: Annotated[
            int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free one).")
        ] = 8080,
    ) -> None:
        """Serve the dashboard on http://127.0.0.1:PORT (this machine only) until Ctrl-C."""
        from pipelines.dashboard.serve import site_server

        server = site_server(site, port)
        host, bound = server.server_address[:2]
        console.print(f"serving {site} on http://{host!s}:{bound}/ (Ctrl-C stops)")
        serve_until_stopped(server)
