"""The terminal the CLI writes to, kept free of the banners and progress bars libraries print."""

from __future__ import annotations

import os
import sys

from rich.console import Console


def wide_console() -> Console:
    # Piped output (make demo in CI logs) gets a width that fits the tables instead of the 80-column default.
    return Console() if sys.stdout.isatty() else Console(width=200)


def quiet_libraries() -> None:
    # GE and Dagster log progress bars and banners that would drown the progress display.
    os.environ.setdefault("TQDM_DISABLE", "1")
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
