"""The suite may grow and may get faster, but no test may be dropped to make it so: a whole run collects at least
as many tests as it did before it was made parallel."""

from __future__ import annotations

from pathlib import Path

import pytest

# `pytest --collect-only -q` of the whole suite on 2026-12-03, before the suite was sped up.
TESTS_BEFORE_THE_SPEED_UP = 1390
TESTS_DIR = Path(__file__).resolve().parent


def is_whole_suite(config: pytest.Config) -> bool:
    """No selection by keyword or marker, and every path given is the tests folder itself (or none at all)."""
    if config.getoption("keyword") or config.getoption("markexpr"):
        return False
    given = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    return all(path == TESTS_DIR for path in given)


def test_a_whole_run_collects_at_least_the_tests_of_before(request: pytest.FixtureRequest) -> None:
    if not is_whole_suite(request.config):
        pytest.skip("a partial run: only a run of the whole suite is counted")
    assert request.session.testscollected >= TESTS_BEFORE_THE_SPEED_UP
