"""`ratecard mcp`: the Model Context Protocol server agents start, answering on stdin and stdout."""

from __future__ import annotations

import typer
from rich.console import Console

from pipelines.cli.options import SnapshotReadOption
from warehouse.files import DEFAULT_DB_PATH


def register(app: typer.Typer, console: Console) -> None:
    @app.command("mcp")
    def mcp(db: SnapshotReadOption = DEFAULT_DB_PATH) -> None:
        """Serve find, where, history, changes and decide to an agent over MCP (stdio), from the published snapshot
        (read-only): exact JSON, money as strings with the unit in each field's name, every row with its source URL
        and fetch time."""
        from pipelines.agents.mcp_server import serve
        from pipelines.cli.terminal import quiet_libraries
        from pipelines.offers.search import read_snapshot

        # Refused at once, not at the agent's first question: a missing file, one that is no DuckDB database, a
        # damaged one, or a snapshot that predates the offers views.
        read_snapshot(db, lambda con: con.execute("SELECT count(*) FROM accelerator_offers").fetchone())
        quiet_libraries()
        serve(db)
