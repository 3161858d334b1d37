"""Fixtures for the fault matrix, and the report `make reliability` prints: one line per scenario, then per
promise how many scenarios measured it and the total they found, then scenarios tried and passed.

Scenarios may run in pytest-xdist workers: each scenario travels to the process that prints the report as a
user property of its teardown report (plain JSON), and is read back there."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from tests.reliability.harness import Matrix
from tests.reliability.promises import PROMISES, Scenario, report_lines
from tests.support.backends import BACKENDS, warehouse_at
from tests.support.landed import copy_lake
from tests.support.localserver import LocalServer
from warehouse.target import LAKE_DATA_ENV

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


class MatrixTemplates:
    """Per backend, a warehouse where the good version of every matrix source was landed, built on first use
    (once per test process) and copied for each scenario: the good landing is the same in every scenario."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory, stack: ExitStack):
        self.tmp_path_factory = tmp_path_factory
        self.stack = stack
        self.built: dict[str, tuple[Path | str, Path, str | None]] = {}  # backend -> (location, folder, data path)

    def template(self, backend: str) -> tuple[Path | str, Path, str | None]:
        if backend not in self.built:
            folder = self.tmp_path_factory.mktemp(f"matrix_template_{backend}")
            with pytest.MonkeyPatch.context() as mp:
                location = self.stack.enter_context(warehouse_at(backend, folder, mp))
                with LocalServer() as server:
                    landed = Matrix(server, folder, db_path=location).refresh()
                assert all(o.ok for o in landed.values()), {k: str(o.error) for k, o in landed.items() if not o.ok}
                self.built[backend] = (location, folder, os.environ.get(LAKE_DATA_ENV))
        return self.built[backend]

    @contextmanager
    def matrix(self, backend: str, server: LocalServer, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Matrix]:
        """A matrix on a private copy of the backend's template, its archive included."""
        location, folder, data_path = self.template(backend)
        shutil.copytree(folder / "archive", tmp / "archive")
        if backend == "file":
            shutil.copyfile(location, tmp / "prices.duckdb")
            yield Matrix(server, tmp, prelanded=True)
            return
        monkeypatch.setenv(LAKE_DATA_ENV, str(data_path))
        with copy_lake(str(location), tmp / "lake", monkeypatch) as copied:
            yield Matrix(server, tmp, db_path=copied, prelanded=True)


@pytest.fixture(scope="session")
def matrix_templates(tmp_path_factory) -> Iterator[MatrixTemplates]:
    with ExitStack() as stack:
        yield MatrixTemplates(tmp_path_factory, stack)


@pytest.fixture
def matrix(server, tmp_path, matrix_templates, monkeypatch) -> Iterator[Matrix]:
    with matrix_templates.matrix("file", server, tmp_path, monkeypatch) as copied:
        yield copied


@pytest.fixture(params=BACKENDS)
def matrix_on_each_backend(request, server, tmp_path, matrix_templates, monkeypatch) -> Iterator[Matrix]:
    """The landing scenarios' matrix, on a DuckDB file and then on a DuckLake (tests/support/backends.py)."""
    with matrix_templates.matrix(request.param, server, tmp_path, monkeypatch) as copied:
        yield copied


@pytest.fixture
def fresh_matrix(server, tmp_path) -> Matrix:
    """A matrix on an empty warehouse, for scenarios about the first landing itself."""
    return Matrix(server, tmp_path)


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
