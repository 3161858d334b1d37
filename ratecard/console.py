"""The `ratecard` console script (and `python -m ratecard`). Signals are handled from its first line, before any
of the pipeline is imported (this package imports nothing heavy): until a command takes them over (a
refresh's stop scope, pipelines.refresh.threads), SIGINT and SIGTERM end the process quietly with 130 / 143, as
documented, instead of a KeyboardInterrupt traceback from a half-done import or a silent death by SIGTERM."""

from __future__ import annotations

import signal
from types import FrameType


def quit_quietly(signal_number: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signal_number)


def main() -> None:
    for number in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(number) is not signal.SIG_IGN:  # ignored by whoever started us (`nohup`, `cmd &`)
            signal.signal(number, quit_quietly)
    from pipelines.cli.app import app  # after the handlers: importing the commands takes a moment

    app(prog_name="ratecard")
