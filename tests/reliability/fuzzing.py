"""What every fuzz test shares: the Hypothesis settings, the sources whose samples are fuzzed, and the one rule
each example is held to (a batch, or a ParseError naming its source; anything else is a parser bug)."""

from __future__ import annotations

import os
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.adapters import parser_for
from pipelines.errors import ParseError
from pipelines.refresh.fan_out import sample_units
from pipelines.sources.file import SourceSpec, load_sources
from tests.reliability.promises import ERRORS_UNNAMED, PARSER_CRASHES, Scenario

# What parses each sample: a source, or for the price list's region index each sample region's unit (the index
# itself is read by the refresh path, not a parser).
SOURCES = {unit.id: unit for s in load_sources() for unit in sample_units(s)}
# Examples per source and scenario: `make test` draws 60 (the same ones every run, derandomised), enough to hold
# every parser to the rule on each kind of mutant; `make fuzz` draws 1,000 of them to look for new findings.
FUZZ_EXAMPLES_ENV = "RATECARD_FUZZ_EXAMPLES"
FUZZ = settings(
    max_examples=int(os.environ.get(FUZZ_EXAMPLES_ENV, "60")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CRASHED, UNNAMED = "crashed", "ParseError not naming its source"  # counted in `seen` just before failing


def outcome_of(source: SourceSpec, body: bytes, seen: Counter | None = None) -> str:
    """'parsed' or the ParseError subclass raised; anything else escapes and fails the test. Each outcome is
    counted in `seen`, and so is a failure (CRASHED, UNNAMED) before it escapes."""
    seen = Counter() if seen is None else seen
    try:
        parser_for(source.adapter)(body, source)
    except ParseError as exc:
        seen[UNNAMED] += f"[{source.id}]" not in str(exc)
        assert f"[{source.id}]" in str(exc), exc  # the error names its source
        outcome = type(exc).__name__
    except Exception:
        seen[CRASHED] += 1
        raise
    else:
        outcome = "parsed"
    seen[outcome] += 1
    return outcome


def measure_failures(scenario: Scenario, seen: Counter) -> None:
    """Crashes and unnamed errors the examples met. Under Hypothesis a failing example is replayed while it
    shrinks, so 0 is exact and anything above it only says "some"."""
    scenario.measure(PARSER_CRASHES, seen[CRASHED])
    scenario.measure(ERRORS_UNNAMED, seen[UNNAMED])


def run_fuzz(source: SourceSpec, strategy: st.SearchStrategy[bytes], scenario: Scenario) -> Counter:
    seen: Counter = Counter()

    @FUZZ
    @given(body=strategy)
    def one(body: bytes) -> None:
        outcome_of(source, body, seen)

    try:
        one()
    finally:  # measured even when an example failed the test
        measure_failures(scenario, seen)
    return seen


def summary(seen: Counter) -> str:
    seen = +seen  # without the failure counters that stayed at 0
    return f"{sum(seen.values())} mutants: " + ", ".join(f"{k} {v}" for k, v in seen.most_common())
