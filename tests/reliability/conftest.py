"""Fixtures for the fault matrix, and the report `make reliability` prints: one line per scenario, then totals
(scenarios tried and passed, rows wrongly landed, last-good versions lost)."""

from __future__ import annotations

import subprocess

import pytest
from harness import Matrix, Scenario

from localserver import LocalServer

_RESULTS: list[tuple[Scenario, bool]] = []


@pytest.fixture
def server():
    with LocalServer() as running:
        yield running


@pytest.fixture
def children():
    """Child processes a test starts (harness.start); any still running at teardown is killed."""
    started: list[subprocess.Popen] = []
    yield started
    for child in started:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=10)


@pytest.fixture
def matrix(server, tmp_path) -> Matrix:
    return Matrix(server, tmp_path)


@pytest.fixture
def scenario(request) -> Scenario:
    """Name the scenario after the test; the test fills in expected/observed; the report reads the outcome."""
    marker = request.node.get_closest_marker("expect")
    item = Scenario(name=request.node.name.removeprefix("test_"), expected=marker.args[0] if marker else "")
    yield item
    report = getattr(request.node, "rep_call", None)
    _RESULTS.append((item, bool(report and report.passed)))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.rep_call = report
    return report


def pytest_configure(config):
    config.addinivalue_line("markers", "expect(outcome): the outcome a reliability scenario expects")


def pytest_terminal_summary(terminalreporter):
    if not _RESULTS:
        return
    write = terminalreporter.write_line
    write("")
    write("Reliability report: scenario | expected | observed | result")
    width = max(len(s.name) for s, _ in _RESULTS)
    for item, passed in _RESULTS:
        observed = " ".join(item.observed.split())
        observed = observed if len(observed) <= 110 else observed[:107] + "..."
        write(f"  {item.name:<{width}} | {item.expected:<12} | {observed} | {'pass' if passed else 'FAIL'}")
    tried, passed = len(_RESULTS), sum(ok for _, ok in _RESULTS)
    wrongly = sum(s.rows_wrongly_landed for s, _ in _RESULTS)
    lost = sum(s.last_good_lost for s, _ in _RESULTS)
    write(f"Scenarios tried: {tried}; passed: {passed}; rows wrongly landed: {wrongly} (must be 0); "
          f"last-good versions lost: {lost} (must be 0)")
