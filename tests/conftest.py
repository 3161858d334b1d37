"""Shared fixtures: a local HTTP site serving the samples, a sources file pointing at it, a temp warehouse."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

# Libraries that print progress bars or phone home stay quiet; runs use an in-memory Dagster instance.
os.environ.setdefault("TQDM_DISABLE", "1")
os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
os.environ.pop("DAGSTER_HOME", None)

import typer
import typer.testing

from pipelines.sources.file import SourceSpec, load_sources
from tests.support.backends import BACKENDS, warehouse_at
from tests.support.localserver import LocalServer
from tests.support.sourcefiles import serve_samples, write_sources_file

if TYPE_CHECKING:
    from tests.support.dagster_landed import DagsterLandings

# Typer's CliRunner turns the Typer app into its click command on every invoke: every command's signature and
# annotations read again, about 0.1 s each time (most of the CLI sweep's minute). The app is whole once imported,
# so each app's command is built once per test process and reused; a command's run keeps no state in it.
_build_command = typer.testing._get_command
_built_commands: dict[int, tuple[typer.Typer, Any]] = {}


def _built_once(app: typer.Typer) -> Any:
    if id(app) not in _built_commands:  # the app is kept beside its command, so its id is never reused
        _built_commands[id(app)] = (app, _build_command(app))
    return _built_commands[id(app)][1]


typer.testing._get_command = _built_once


@pytest.fixture
def sources() -> list[SourceSpec]:
    return load_sources()


@pytest.fixture
def site(sources):
    """A LocalServer serving every bundled sample at its sample path."""
    with LocalServer() as server:
        serve_samples(server, sources)
        yield server


@pytest.fixture
def sources_file(tmp_path, sources, site) -> Path:
    return write_sources_file(tmp_path / "sources.toml", sources, site.base_url)


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "warehouse" / "prices.duckdb"


@pytest.fixture(params=BACKENDS)
def backend_db_path(request, tmp_path, monkeypatch):
    """db_path on each backend in turn: a DuckDB file, then a DuckLake on the machine's PostgreSQL."""
    with warehouse_at(request.param, tmp_path, monkeypatch) as location:
        yield location


@pytest.fixture(scope="session")
def dagster_landings(tmp_path_factory) -> Iterator[DagsterLandings]:
    """Every sample landed through the Dagster jobs, once per backend in this process (support/dagster_landed.py)."""
    from tests.support.dagster_landed import DagsterLandings  # imports Dagster: only for the tests that use it

    with ExitStack() as stack:
        yield DagsterLandings(tmp_path_factory, stack)


DEMO_GROUP = "demo_warehouse"


@pytest.fixture(scope="session")
def demo_warehouse(tmp_path_factory) -> Path:
    """The demo warehouse: every bundled sample refreshed offline (`ratecard refresh --offline`), landed once per
    test process and its snapshot published. Tests only read it."""
    from typer.testing import CliRunner

    from pipelines.cli.app import app

    db = tmp_path_factory.mktemp("demo") / "prices.duckdb"
    result = CliRunner().invoke(app, ["refresh", "--offline", "--db", str(db)])
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture
def children():
    """Child processes a test starts (harness.start); any still running at teardown is killed."""
    started: list[subprocess.Popen] = []
    yield started
    for child in started:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=10)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`--dist loadgroup` keeps an xdist_group in one worker by suffixing its test ids with `@<group>`. xdist 3.8
    writes that suffix where pytest 8 kept the id; pytest 9 keeps it elsewhere, so xdist's suffix is lost and the
    group's tests are spread over workers (each then lands the shared warehouse again). Write it where pytest 9
    reads it, in the worker that collected the tests."""
    if not getattr(config.option, "loadgroup", False):
        return
    from _pytest.nodeid import coerce_node_id  # pytest 9's own id type: the one place the suffix takes effect

    for item in items:
        # The demo warehouse takes a refresh of every sample to land: its readers share one worker, so one lands it.
        if "demo_warehouse" in getattr(item, "fixturenames", ()) and not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(DEMO_GROUP))
        groups = sorted(
            {
                str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                for mark in item.iter_markers("xdist_group")
            }
        )
        if groups and "@" not in item.nodeid:
            item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(groups)}")
