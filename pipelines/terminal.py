"""The terminal the CLI writes to."""

from __future__ import annotations

import sys

from rich.console import Console


def wide_console() -> Console:
    # Piped output (make demo in CI logs) gets a width that fits the tables instead of the 80-column default.
    return Console() if sys.stdout.isatty() else Console(width=200)
