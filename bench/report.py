"""Timing and the results table shared by every scenario.

`measure` runs a function once untimed (warm-up), then `reps` timed runs with time.perf_counter and keeps
every sample; the table reports the median (and min–max so noise is visible). Work a run needs that is not
what is being measured (a fresh database, undoing a refresh) goes in `setup` / `teardown`, outside the
timed span. Garbage is collected once per measurement and the collector paused during each timed span
(as timeit does).
Ratios are always computed from medians measured in the same process run, never from remembered figures.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Timing:
    samples: tuple[float, ...]  # seconds, one per timed run (warm-up excluded)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def low(self) -> float:
        return min(self.samples)

    @property
    def high(self) -> float:
        return max(self.samples)

    @property
    def n(self) -> int:
        return len(self.samples)


@dataclass(frozen=True)
class Result:
    """One line of the table: a timing (optionally with rows per run, giving rows/s) or a derived value."""

    scenario: str
    name: str
    timing: Timing | None = None
    rows: int | None = None  # rows handled per timed run -> throughput
    value: str | None = None  # a ratio or count, already formatted
    note: str = ""

    @property
    def rows_per_second(self) -> float | None:
        if self.timing is None or not self.rows:
            return None
        return self.rows / self.timing.median


def measure(
    fn: Callable[[Any], Any],
    *,
    reps: int,
    warmup: int = 1,
    setup: Callable[[], Any] | None = None,
    teardown: Callable[[Any, Any], None] | None = None,
) -> Timing:
    """Median-ready samples of fn(setup()); setup and teardown run outside the timed span."""
    samples: list[float] = []
    # The young generations are collected up front, not per run, and the collector is off while a run is timed. A
    # full collection would cost 50 ms or more with the live objects of a long process (more than many of the
    # things timed), free almost nothing (old objects are the modules and caches) and leave caches cold.
    gc.collect(1)
    for i in range(warmup + reps):
        state = setup() if setup else None
        gc.disable()
        try:
            start = time.perf_counter()
            out = fn(state)
            elapsed = time.perf_counter() - start
        finally:
            gc.enable()
        if teardown:
            teardown(state, out)
        if i >= warmup:
            samples.append(elapsed)
    return Timing(tuple(samples))


def ratio(slow: float, fast: float) -> float:
    return slow / fast if fast else float("inf")


# ---- formatting ---------------------------------------------------------------------------------------


def fmt_seconds(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def fmt_rate(per_second: float) -> str:
    for threshold, suffix in ((1e6, "M"), (1e3, "k")):
        if per_second >= threshold:
            return f"{per_second / threshold:.2f}{suffix} rows/s"
    return f"{per_second:.0f} rows/s"


def fmt_ratio(x: float) -> str:
    return f"{x:,.1f}×" if x < 100 else f"{x:,.0f}×"


def progress(message: str) -> None:
    """Progress goes to stderr so stdout holds only the report."""
    print(f"  … {message}", file=sys.stderr, flush=True)


def _row(r: Result) -> list[str]:
    if r.timing is not None:
        t = r.timing
        spread = f"{fmt_seconds(t.low)} – {fmt_seconds(t.high)}"
        rate = fmt_rate(r.rows_per_second) if r.rows_per_second else ""
        return [r.scenario, r.name, fmt_seconds(t.median), spread, str(t.n), rate, r.note]
    return [r.scenario, r.name, r.value or "", "", "", "", r.note]


HEADERS = ["scenario", "measurement", "median / value", "min – max", "n", "throughput", "note"]


def render_table(results: list[Result]) -> str:
    rows = [_row(r) for r in results]
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(HEADERS)]
    right = {2, 3, 4, 5}  # numbers align right

    def line(cells: list[str]) -> str:
        out = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(out).rstrip()

    lines = [line(HEADERS), line(["-" * w for w in widths])]
    previous = None
    for r, cells in zip(results, rows, strict=True):
        if previous is not None and r.scenario != previous:
            lines.append("")
        previous = r.scenario
        lines.append(line(cells))
    return "\n".join(lines)
