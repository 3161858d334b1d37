"""Run the Dagster asset graph in-process, one source at a time, reporting each source as it finishes.

The CLI uses this: the same assets, checks and resources as the schedule, executed by Dagster itself, with a
run per source so the progress display can tell each source's outcome the moment it is known. The views run
last, whatever happened to the sources, because they read whatever was last landed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import dagster as dg

from assets.gpu_views import COMPARISON_KEY, GPU_CHEAPEST_KEY
from assets.publish import SNAPSHOT_KEY
from assets.sources import source_asset_key
from assets.views import VIEWS_KEY

if TYPE_CHECKING:
    from dagster._core.execution.plan.objects import StepFailureData  # not re-exported by dagster

# What the publish_views job materialises: the views, then the read-only snapshot.
PUBLISH_KEYS = [VIEWS_KEY, GPU_CHEAPEST_KEY, COMPARISON_KEY, SNAPSHOT_KEY]

QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}


@dataclass
class SourceRun:
    source_id: str
    status: str  # landed | unchanged | quarantined | fetch_failed | failed
    inserted: int = 0
    closed: int = 0
    unchanged: int = 0
    message: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status in ("landed", "unchanged")


def instance_for_cli() -> dg.DagsterInstance:
    # With DAGSTER_HOME set the runs land in that instance and show in `dagster dev`; else in memory.
    return dg.DagsterInstance.get() if os.environ.get("DAGSTER_HOME") else dg.DagsterInstance.ephemeral()


def _plain(metadata: Mapping[str, dg.MetadataValue[Any]]) -> dict[str, Any]:
    """Dagster wraps each metadata value; the progress display wants the number or text inside."""
    return {name: entry.value for name, entry in metadata.items()}


def summarise(result: dg.ExecuteInProcessResult, source_id: str, seconds: float) -> SourceRun:
    key = source_asset_key(source_id)
    for event in result.get_asset_materialization_events():
        if event.asset_key == key:
            meta = _plain(event.materialization.metadata)
            return SourceRun(
                source_id,
                str(meta["outcome"]),
                int(meta["rows_inserted"]),
                int(meta["rows_closed"]),
                int(meta["rows_unchanged"]),
                seconds=seconds,
            )
    failures = result.get_step_failure_events()
    if failures:
        return failed_run(failures[0].step_failure_data, source_id, seconds)
    return SourceRun(source_id, "failed", message="the run produced no materialization", seconds=seconds)


def failed_run(failure: StepFailureData, source_id: str, seconds: float) -> SourceRun:
    """A failed step: our own dg.Failure carries the outcome and a description, anything else its error."""
    user = failure.user_failure_data
    if user is None:
        message = failure.error.message.strip() if failure.error else "the step failed"
        return SourceRun(source_id, "failed", message=message, seconds=seconds)
    outcome = str(_plain(user.metadata).get("outcome", "failed"))
    return SourceRun(source_id, outcome, message=user.description or "", seconds=seconds)


def run_sources(
    defs: dg.Definitions,
    source_ids: list[str],
    *,
    instance: dg.DagsterInstance,
    on_start: Callable[[str], None] = lambda _id: None,
    on_done: Callable[[SourceRun], None] = lambda _run: None,
) -> tuple[list[SourceRun], bool]:
    """Materialise each source, then the views. Returns the per-source runs and whether the views ran."""
    # The all-assets job, one selection per run: sources go in sources-file order (FX before GPU providers).
    job = defs.resolve_implicit_global_asset_job_def()
    runs: list[SourceRun] = []
    for source_id in source_ids:
        on_start(source_id)
        started = time.perf_counter()
        result = job.execute_in_process(
            asset_selection=[source_asset_key(source_id)],
            instance=instance,
            run_config=QUIET_RUN_CONFIG,
            raise_on_error=False,
            tags={"ratecard/source": source_id},
        )
        run = summarise(result, source_id, time.perf_counter() - started)
        runs.append(run)
        on_done(run)
    views = job.execute_in_process(
        asset_selection=PUBLISH_KEYS, instance=instance, run_config=QUIET_RUN_CONFIG, raise_on_error=False
    )
    return runs, views.success
