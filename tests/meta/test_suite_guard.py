"""The suite may grow and may get faster, but no test may be dropped to make it so: a whole run collects at least
as many tests as the floor below. Raise the floor when the suite grows; never lower it to let a run pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import TESTS

# What `pytest --collect-only -q` counted for the whole suite when the floor was last raised (2,342), less a
# margin of 7 for a test folded into another.
FEWEST_TESTS_COLLECTED = 2480


def is_whole_suite(config: pytest.Config) -> bool:
    """No selection by keyword or marker, and every path given is the tests folder itself (or none at all)."""
    if config.getoption("keyword") or config.getoption("markexpr"):
        return False
    given = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    return all(path == TESTS for path in given)


def test_a_whole_run_collects_at_least_the_floor(request: pytest.FixtureRequest) -> None:
    if not is_whole_suite(request.config):
        pytest.skip("a partial run: only a run of the whole suite is counted")
    assert request.session.testscollected >= FEWEST_TESTS_COLLECTED
