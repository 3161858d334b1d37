"""The promises the fault matrix checks, what each scenario measured of them, and the report built from that.

A scenario declares the promises it checks (`@pytest.mark.promises(...)` next to `expect`) and records what it
found with `scenario.measure(PROMISE, count)`. A promise never measured stays None, never 0, so the report can
say how many scenarios really counted each one instead of summing zeros nobody observed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Promise:
    """Something that must count 0 in every scenario that checks it; `key` is the short name in a report line."""

    key: str
    label: str


ROWS_WRONGLY_LANDED = Promise("rows", "rows wrongly landed")
LAST_GOOD_LOST = Promise("lost", "last-good versions lost")
OTHERS_DISTURBED = Promise("others", "other sources disturbed")
ERRORS_UNNAMED = Promise("unnamed", "errors not naming their source")
PARSER_CRASHES = Promise("crashes", "parser exceptions other than ParseError")
READER_SAW_A_MIX = Promise("mixed", "reader answers from no published version")
REFRESHES_OVERLAPPED = Promise("overlap", "refreshes that wrote beside another")
UNWANTED_REQUESTS = Promise("requests", "requests that should not have been sent")
SECRETS_LEAKED = Promise("leaks", "secret copies outside the request")
UNSAFE_SQL = Promise("sql", "SQL texts built from data")
PROMISES = (
    ROWS_WRONGLY_LANDED,
    LAST_GOOD_LOST,
    OTHERS_DISTURBED,
    ERRORS_UNNAMED,
    PARSER_CRASHES,
    READER_SAW_A_MIX,
    REFRESHES_OVERLAPPED,
    UNWANTED_REQUESTS,
    SECRETS_LEAKED,
    UNSAFE_SQL,
)

# What run_fault measures: every fault scenario, and for a refused fetch also the error's naming.
FAULT = (ROWS_WRONGLY_LANDED, LAST_GOOD_LOST, OTHERS_DISTURBED)
REFUSED_FAULT = (*FAULT, ERRORS_UNNAMED)


@dataclass
class Scenario:
    """What a scenario promised and observed; the reliability report prints one line per scenario from these.

    `declared` is None when the test carries no `promises` marker: that is a bookkeeping error, while an empty
    declaration says the scenario is pass/fail only.
    """

    name: str
    expected: str
    declared: tuple[Promise, ...] | None = None
    observed: str = "not run"
    measured: dict[Promise, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def measure(self, promise: Promise, count: int) -> None:
        """Record what one check counted; several checks of the same promise in one scenario add up."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"{promise.label}: a count must be an int >= 0, got {count!r}")
        self.measured[promise] = self.measured.get(promise, 0) + count

    def value(self, promise: Promise) -> int | None:
        """The count measured for `promise`, or None if this scenario never measured it."""
        return self.measured.get(promise)

    def bookkeeping_errors(self) -> list[str]:
        """Declared promises never measured, and measured ones never declared (each a reason to fail)."""
        if self.declared is None:
            return ["no @pytest.mark.promises(...) declaration"]
        errors = [f"declared but never measured: {p.label}" for p in self.declared if p not in self.measured]
        return errors + [f"measured but not declared: {p.label}" for p in self.measured if p not in self.declared]


def scenario_line(scenario: Scenario, ok: bool, width: int) -> str:
    """name | expected | observed | what it measured (short keys) | pass or FAIL."""
    observed = " ".join(scenario.observed.split())
    observed = observed if len(observed) <= 110 else observed[:107] + "..."
    counts = " ".join(f"{p.key}={scenario.measured[p]}" for p in PROMISES if p in scenario.measured) or "-"
    return f"  {scenario.name:<{width}} | {scenario.expected:<12} | {observed} | {counts} | {'pass' if ok else 'FAIL'}"


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def promise_line(promise: Promise, scenarios: Iterable[Scenario]) -> str:
    """'<label>: <total> in <n> scenarios that count them', from measured values only."""
    values = [v for v in (s.value(promise) for s in scenarios) if v is not None]
    if not values:
        return f"  {promise.label}: not measured by any scenario"
    verb = "counts" if len(values) == 1 else "count"
    return f"  {promise.label}: {sum(values)} in {plural(len(values), 'scenario')} that {verb} them"


def passed(scenario: Scenario, call_passed: bool) -> bool:
    """A scenario passes when its test passed and it measured exactly the promises it declared."""
    return call_passed and not scenario.bookkeeping_errors()


def report_lines(results: list[tuple[Scenario, bool]]) -> list[str]:
    """The reliability report from (scenario, its test passed) pairs: one line per scenario, then per promise
    what was measured, then bookkeeping errors and the tally."""
    if not results:
        return []
    scenarios = [s for s, _ in results]
    width = max(len(s.name) for s in scenarios)
    lines = ["", "Reliability report: scenario | expected | observed | measured counts | result"]
    lines += [scenario_line(s, passed(s, ok), width) for s, ok in results]
    lines.append("Promises (each must be 0; only scenarios that measured a promise are counted for it):")
    lines += [promise_line(p, scenarios) for p in PROMISES]
    unpromised = sum(s.declared == () for s in scenarios)
    if unpromised:
        lines.append(f"  pass/fail only, no counted promise: {plural(unpromised, 'scenario')}")
    # A test that failed may have stopped before measuring: only finished tests are held to their declaration.
    bad = [f"{s.name}: {'; '.join(s.bookkeeping_errors())}" for s, ok in results if ok and s.bookkeeping_errors()]
    lines += [f"Promise bookkeeping errors in {plural(len(bad), 'scenario')}:", *(f"  {b}" for b in bad)] if bad else []
    lines.append(f"Scenarios tried: {len(results)}, passed: {sum(passed(s, ok) for s, ok in results)}")
    return lines
