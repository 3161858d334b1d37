"""`ratecard samples serve`: the bundled samples on 127.0.0.1, answering as the sources' hosts do, until stopped.

`refresh --offline` serves them for its own run only; this keeps them up for anything else that fetches, such as
`dagster dev` or a `dagster job execute` with `RATECARD_OFFLINE_BASE_URL` set to the URL printed. A plain static
server does not do: RunPod's API is POSTed to, and the price-list files are asked for at AWS's own paths.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from pipelines.cli.process import serve_until_stopped
from pipelines.dashboard import PortTaken

DEFAULT_PORT = 8765
samples_app = typer.Typer(help="The bundled samples (pipelines/samples/), as the sources' hosts serve them.")


def register(app: typer.Typer, console: Console) -> None:
    app.add_typer(samples_app, name="samples")

    @samples_app.command("serve")
    def serve(
        port: Annotated[
            int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free one).")
        ] = DEFAULT_PORT,
    ) -> None:
        """Serve the bundled samples on http://127.0.0.1:PORT until Ctrl-C; point RATECARD_OFFLINE_BASE_URL there."""
        from pipelines.fetch.offline import sample_server
        from pipelines.sources.locations import SAMPLES_DIR

        try:
            server = sample_server(SAMPLES_DIR, port)
        except OSError as exc:  # EADDRINUSE, or EACCES for a port below 1024
            raise PortTaken(f"cannot serve the samples on 127.0.0.1:{port}: {exc.strerror or exc}") from exc
        base_url = f"http://127.0.0.1:{server.server_address[1]}"
        console.print(f"serving {SAMPLES_DIR} on {base_url} (Ctrl-C stops)", soft_wrap=True)
        console.print(f"RATECARD_OFFLINE_BASE_URL={base_url}", soft_wrap=True, highlight=False)
        serve_until_stopped(server)
