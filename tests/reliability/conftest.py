"""Fixtures for the fault matrix, and the report `make reliability` prints: one line per scenario, then per
promise how many scenarios measured it and the total they found, then scenarios tried and passed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness import Matrix
from localserver import LocalServer
from promises import Scenario, report_lines

_RESULTS: list[tuple[Scenario, bool]] = []


@pytest.fixture
def server():
    with LocalServer() as running:
        yield running


@pytest.fixture
def matrix(server, tmp_path) -> Matrix:
    return Matrix(server, tmp_path)


@pytest.fixture
def matrix_on_each_backend(server, tmp_path, backend_db_path) -> Matrix:
    """The landing scenarios' matrix, on a DuckDB file and then on a DuckLake (tests/backends.py)."""
    return Matrix(server, tmp_path, db_path=backend_db_path)


@pytest.fixture
def scenario(request: pytest.FixtureRequest) -> Iterator[Scenario]:
    """Name the scenario after the test, with the outcome its `expect` marker names and the promises its
    `promises` marker declares; the test measures them and fills in what it observed; the report reads it all.
    A test that passed but left a declared promise unmeasured (or measured an undeclared one) fails here."""
    expect = request.node.get_closest_marker("expect")
    promises = request.node.get_closest_marker("promises")
    item = Scenario(
        name=request.node.name.removeprefix("test_"),
        expected=expect.args[0] if expect else "",
        declared=tuple(promises.args) if promises else None,
    )
    yield item
    report = getattr(request.node, "rep_call", None)
    call_passed = bool(report and report.passed)
    _RESULTS.append((item, call_passed))
    if call_passed and item.bookkeeping_errors():
        pytest.fail(f"promise bookkeeping: {'; '.join(item.bookkeeping_errors())}", pytrace=False)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.rep_call = report
    return report


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "expect(outcome): the outcome a reliability scenario expects")
    config.addinivalue_line(
        "markers",
        "promises(*promises): the promises (promises.py) a reliability scenario "
        "measures; none at all for a pass/fail-only scenario",
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in report_lines(_RESULTS):
        terminalreporter.write_line(line)
