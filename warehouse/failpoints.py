"""Failpoints: named places where a test can make this process stop dead, to prove crash safety.

`RATECARD_FAILPOINT=<name>:<marker file>` makes `failpoint(<name>)` write the marker and sleep, so a test can
SIGKILL the process at exactly that point (say, halfway through a landing transaction). Unset, it does nothing.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

ENV = "RATECARD_FAILPOINT"


def failpoint(name: str) -> None:
    spec = os.environ.get(ENV)
    if not spec:
        return
    wanted, _, marker = spec.partition(":")
    if wanted == name:
        Path(marker).write_text(str(os.getpid()))
        time.sleep(3600)
