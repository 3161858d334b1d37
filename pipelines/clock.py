"""ratecard's clock: the time a fetch is stamped with, and so the time versions start and end.

It is the machine's UTC clock. The soak (`make soak`, bench/soak.py) runs a month of daily refreshes in minutes: it
starts each day's refresh with `RATECARD_SIMULATED_START` set to that day's morning (ISO 8601 with its offset), and
the clock then reads that instant plus the time the process has run since. Unset in any real use.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

SIMULATED_START_ENV = "RATECARD_SIMULATED_START"
_started = time.monotonic()


def utc_now() -> datetime:
    simulated = os.environ.get(SIMULATED_START_ENV)
    if not simulated:
        return datetime.now(UTC)
    return datetime.fromisoformat(simulated).astimezone(UTC) + timedelta(seconds=time.monotonic() - _started)
