"""Every sample landed by the daily Dagster jobs, once per backend per test process, for the end-to-end modules
to share (tests/conftest.py's `dagster_landings`). A test that refreshes again takes a copy (support/landed.py)."""

from __future__ import annotations

import os
import re
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest

from pipelines.definitions import build_definitions
from pipelines.orchestration.resources import FetcherResource
from pipelines.sources.file import load_sources
from tests.support.backends import BACKENDS, warehouse_at
from tests.support.localserver import LocalServer
from tests.support.sourcefiles import serve_samples, write_sources_file
from warehouse.target import LAKE_DATA_ENV


def landing_group(backend: str) -> pytest.MarkDecorator:
    """The xdist group of the tests that read or copy `backend`'s session landing: one worker lands it once."""
    return pytest.mark.xdist_group(f"end_to_end_{backend}")


# A test parametrised over these lands in its backend's group.
BACKEND_PARAMS = [pytest.param(backend, marks=landing_group(backend)) for backend in BACKENDS]
FAST_FETCHER = FetcherResource(max_attempts=2, backoff_initial_s=0.01, read_timeout_s=5)
NO_RETRY = dg.RetryPolicy(max_retries=0)


class MergedResult:
    """Both runs' events, read like one run's."""

    def __init__(self, *results: dg.ExecuteInProcessResult):
        self.results = results
        self.success = all(r.success for r in results)
        self.all_events = [event for r in results for event in r.all_events]


def run_refresh(sources_file, db_path) -> MergedResult:
    """The daily jobs in order: FX rates, every price source, then (as the sensor does) views and snapshot."""
    defs = build_definitions(sources_file, db_path, fetcher=FAST_FETCHER, fetch_retry_policy=NO_RETRY)
    runs = [
        defs.resolve_job_def(job).execute_in_process(raise_on_error=False)
        for job in ("refresh_fx", "refresh_prices", "publish_views")
    ]
    return MergedResult(*runs)


def failures_by_step(result: MergedResult) -> dict[str, str]:
    """Each failed step's description; a source step's holds one "[source id] ..." entry per failed source, each
    keyed here as sources__<id>."""
    failures = {}
    for e in result.all_events:
        if e.event_type_value == "STEP_FAILURE":
            description = e.event_specific_data.user_failure_data.description
            entries = re.split(r"^(?=\[\w+\] )", description, flags=re.MULTILINE)
            per_source = {m[1]: entry for entry in entries if (m := re.match(r"\[(\w+)\] ", entry))}
            failures.update({f"sources__{i}": entry for i, entry in per_source.items()} or {e.step_key: description})
    return failures


def check_outcomes(result: MergedResult) -> dict[tuple[str, str], bool]:
    return {
        (
            e.event_specific_data.asset_key.to_user_string(),
            e.event_specific_data.check_name,
        ): e.event_specific_data.passed
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }


@dataclass
class DagsterLanding:
    """One refresh of every sample through Dagster, on one backend; `lake_data` is a lake's data folder."""

    backend: str
    db_path: Path | str
    result: MergedResult
    site: LocalServer
    sources_file: Path
    lake_data: str | None


class DagsterLandings:
    """Builds each backend's landing on first use and keeps it (and the server it came from) for the session."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory, stack: ExitStack):
        self.tmp_path_factory = tmp_path_factory
        self.stack = stack
        self.built: dict[str, DagsterLanding] = {}

    def get(self, backend: str) -> DagsterLanding:
        if backend not in self.built:
            self.built[backend] = self.build(backend)
        return self.built[backend]

    def build(self, backend: str) -> DagsterLanding:
        tmp = self.tmp_path_factory.mktemp(f"dagster_landed_{backend}")
        sources = load_sources()
        site = self.stack.enter_context(LocalServer())
        serve_samples(site, sources)
        sources_file = write_sources_file(tmp / "sources.toml", sources, site.base_url)
        with pytest.MonkeyPatch.context() as mp:
            location = self.stack.enter_context(warehouse_at(backend, tmp, mp))
            result = run_refresh(sources_file, location)
            lake_data = os.environ.get(LAKE_DATA_ENV)
        assert result.success, failures_by_step(result)
        return DagsterLanding(backend, location, result, site, sources_file, lake_data)
