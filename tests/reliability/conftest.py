"""Fixtures for the fault matrix, and the report `make reliability` prints: one line per scenario, then per
promise how many scenarios measured it and the total they found, then scenarios tried and passed.

Scenarios may run in pytest-xdist workers: each scenario travels to the process that prints the report as a
user property of its teardown report (plain JSON), and is read back there."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from harness import Matrix
from localserver import LocalServer
from promises import PROMISES, Scenario, report_lines

_RESULTS: list[tuple[Scenario, bool]] = []
_SCENARIO_PROPERTY = "reliability_scenario"
_BY_KEY = {p.key: p for p in PROMISES}


def scenario_json(item: Scenario, call_passed: bool) -> str:
    declared = None if item.declared is None else [p.key for p in item.declared]
    measured = {p.key: count for p, count in item.measured.items()}
    return json.dumps([item.name, item.expected, declared, item.observed, measured, item.notes, call_passed])


def scenario_from_json(text: str) -> tuple[Scenario, bool]:
    name, expected, declared, observed, measured, notes, call_passed = json.loads(text)
    item = Scenario(
        name=name,
        expected=expected,
        declared=None if declared is None else tuple(_BY_KEY[k] for k in declared),
        observed=observed,
        measured={_BY_KEY[k]: count for k, count in measured.items()},
        notes=notes,
    )
    return item, call_passed


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
    request.node.user_properties.append((_SCENARIO_PROPERTY, scenario_json(item, call_passed)))
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


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Collect each scenario where the report is printed (the main process, with or without xdist)."""
    if report.when == "teardown":
        _RESULTS.extend(
            scenario_from_json(value) for name, value in report.user_properties if name == _SCENARIO_PROPERTY
        )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in report_lines(_RESULTS):
        terminalreporter.write_line(line)
