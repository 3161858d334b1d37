"""Daily jobs, schedules and the sensor that publishes after each price refresh.

- `refresh_fx` (05:45 UTC): the ECB rates. Apart from the prices so that a failed ECB fetch cannot make
  Dagster skip the GPU sources downstream of it: they then convert with the latest earlier rate.
- `refresh_prices` (06:00 UTC): every price and spec source (AWS pages, price lists, GPU providers, Neuron
  docs) and the in-repo reference files.
- `publish_views`: the view assets and the read-only snapshot, launched by the sensor once a price refresh
  has finished, whether every source landed or some failed. In one run with the sources, one failed
  source would make Dagster skip the views and the snapshot, and hide what the others landed.
All three carry one run tag limited to 1 in dagster.yaml, so two refreshes queue, never interleave.
"""

from __future__ import annotations

import dagster as dg

REFRESH_JOB = "refresh_prices"
FX_JOB = "refresh_fx"
PUBLISH_JOB = "publish_views"
DAILY_SCHEDULE = "daily_price_refresh"
FX_SCHEDULE = "daily_fx_refresh"
PUBLISH_SENSOR = "publish_after_refresh"
WAREHOUSE_TAG = {"ratecard/warehouse": "write"}

FX_GROUP = "fx_sources"
# Every source of every kind (each is an asset under sources/), but FX: a kind added is refreshed without a list here.
SOURCES = dg.AssetSelection.key_prefixes(["sources"]) - dg.AssetSelection.groups(FX_GROUP)
PUBLISH_GROUPS = ("views", "publish")

# In-process: every step writes DuckDB, and a source step fetches its whole group concurrently inside itself;
# a process per step would only add a Dagster + Great Expectations import (~10 s) to each. Measured on the
# samples, when each source was its own step: multiprocess 75 s, in-process ~10 s for the same run.
refresh_job = dg.define_asset_job(
    name=REFRESH_JOB,
    selection=SOURCES,
    executor_def=dg.in_process_executor,
    tags=WAREHOUSE_TAG,
    description="Fetch every price source, validate, and land versioned rows.",
)
# Fanned out (RATECARD_DAGSTER_WORKERS, pipelines/definitions.py), each source is a step of its own carrying its
# host in this op tag, and the executor runs `workers` steps at once, at most the sources file's per_host on a host.
HOST_TAG = "ratecard/host"


def fanned_out_refresh_job(workers: int, per_host: int) -> dg.UnresolvedAssetJobDefinition:
    """`refresh_prices` with a process per step, `workers` at a time. Each step is forked from a server that has
    imported ratecard and Dagster once, so a step starts in milliseconds rather than the seconds of an import.
    On a DuckDB file the landings still take turns (the refresh lock); on a lake they land at once."""
    limits = [{"key": HOST_TAG, "value": {"applyLimitPerUniqueValue": True}, "limit": per_host}]
    start = {"forkserver": {"preload_modules": ["pipelines.definitions"]}}
    executor = dg.multiprocess_executor.configured(
        {"max_concurrent": workers, "tag_concurrency_limits": limits, "start_method": start}
    )
    return dg.define_asset_job(
        name=REFRESH_JOB,
        selection=SOURCES,
        executor_def=executor,
        tags=WAREHOUSE_TAG,
        description=f"Fetch, validate and land every price source; a step per source, {workers} at once.",
    )


def daily_at(name: str, job: dg.UnresolvedAssetJobDefinition | dg.JobDefinition, cron: str) -> dg.ScheduleDefinition:
    """A schedule running `job` at `cron` (UTC), on from the start."""
    return dg.ScheduleDefinition(
        name=name,
        job=job,
        cron_schedule=cron,
        execution_timezone="UTC",
        default_status=dg.DefaultScheduleStatus.RUNNING,
    )


def daily_price_schedule(job: dg.UnresolvedAssetJobDefinition) -> dg.ScheduleDefinition:
    # 06:00 UTC: after AWS's overnight price-list publication, before European working hours.
    return daily_at(DAILY_SCHEDULE, job, "0 6 * * *")


fx_job = dg.define_asset_job(
    name=FX_JOB,
    selection=dg.AssetSelection.groups(FX_GROUP),
    executor_def=dg.in_process_executor,
    tags=WAREHOUSE_TAG,
    description="Fetch and land the ECB euro reference rates for non-USD GPU prices.",
)
publish_job = dg.define_asset_job(
    name=PUBLISH_JOB,
    selection=dg.AssetSelection.groups(*PUBLISH_GROUPS),
    executor_def=dg.in_process_executor,
    tags=WAREHOUSE_TAG,
    description="Refresh the public views and publish the read-only snapshot.",
)

# The ECB publishes around 16:00 CET; 05:45 UTC picks up the previous day's fixing before the price run.
fx_schedule = daily_at(FX_SCHEDULE, fx_job, "45 5 * * *")
daily_schedule = daily_price_schedule(refresh_job)

FINISHED = [dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE]


@dg.sensor(
    name=PUBLISH_SENSOR, job=publish_job, minimum_interval_seconds=30, default_status=dg.DefaultSensorStatus.RUNNING
)
def publish_after_refresh(context: dg.SensorEvaluationContext) -> dg.SkipReason | dg.RunRequest:
    """One publish per finished price refresh (success or failure), keyed by that run's id."""
    runs = context.instance.get_runs(filters=dg.RunsFilter(job_name=REFRESH_JOB, statuses=FINISHED), limit=1)
    if not runs or runs[0].run_id == context.cursor:
        return dg.SkipReason("no price refresh has finished since the last publish")
    context.update_cursor(runs[0].run_id)
    return dg.RunRequest(run_key=runs[0].run_id, tags={"ratecard/after_run": runs[0].run_id})
