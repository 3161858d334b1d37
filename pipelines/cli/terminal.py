"""The terminal the CLI writes to, kept free of the banners and progress bars libraries print."""

from __future__ import annotations

import os
import sys

import typer
from rich.console import Console

EXIT_CLOSED_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a program whose reader went away


def closed_pipe() -> typer.Exit:
    """Stop quietly: the rest of the output goes nowhere, so the interpreter's last flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return typer.Exit(code=EXIT_CLOSED_PIPE)


class PipedConsole(Console):
    """rich's console, except that a reader closing the output early (`| head`) ends the command with 141."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise closed_pipe()


def wide_console() -> Console:
    # Piped output (make demo in CI logs) gets a width that fits the tables instead of the 80-column default.
    return PipedConsole() if sys.stdout.isatty() else PipedConsole(width=200)


def quiet_libraries() -> None:
    # GE and Dagster log progress bars and banners that would drown the progress display.
    os.environ.setdefault("TQDM_DISABLE", "1")
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
