"""Failpoints: named places where a test can make this process stop dead, to prove crash and stop safety.

`RATECARD_FAILPOINT=<name>[@<n>]:<marker file>` makes the n-th call (default: the first) of `failpoint(<name>)`
write the marker and sleep, so a test can SIGKILL the process, or send it SIGINT or SIGTERM, at exactly that point
(say, halfway through a landing transaction, or in the twentieth region's landing). Unset, it does nothing.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from pathlib import Path

from warehouse.stops_deferred import stop_held

ENV = "RATECARD_FAILPOINT"
_calls: Counter[str] = Counter()
_lock = threading.Lock()


def failpoint(name: str) -> None:
    spec = os.environ.get(ENV)
    if not spec:
        return
    wanted, _, marker = spec.partition(":")
    wanted_name, _, nth = wanted.partition("@")
    if wanted_name != name:
        return
    with _lock:
        _calls[name] += 1
        reached = _calls[name] == int(nth or 1)
    if reached:
        Path(marker).write_text(str(os.getpid()))
        parked_until = time.monotonic() + 3600
        # A signal's handler raises here (main thread; in a worker, the main thread stops), or, inside a block that
        # holds stops back (warehouse.stops_deferred), the held stop ends the parking and the block raises it.
        while time.monotonic() < parked_until and not stop_held():
            time.sleep(0.02)
