"""Daily jobs and schedules: FX rates first, then every price source and the views.

FX is its own job on purpose. GPU sources convert with the latest ECB rate on or before their fetch date,
read from the warehouse; if FX sat in the same run as their upstream, a failed ECB fetch would make Dagster
skip every GPU source, even the USD-priced ones that need no rate. Run apart, a bad FX day only means the
previous rate is used (and shown, with its date, on every converted row).
"""

from __future__ import annotations

import dagster as dg

REFRESH_JOB = "refresh_prices"
FX_JOB = "refresh_fx"
DAILY_SCHEDULE = "daily_price_refresh"
FX_SCHEDULE = "daily_fx_refresh"
FX_GROUP = "fx_sources"

# In-process: every step writes DuckDB and so queues in the single-writer pool anyway; a process per step
# would only add a Dagster + Great Expectations import (~10 s) to each source. Measured on the samples:
# multiprocess 75 s, in-process ~10 s for the same run.
refresh_job = dg.define_asset_job(
    name=REFRESH_JOB,
    selection=dg.AssetSelection.all() - dg.AssetSelection.groups(FX_GROUP),
    executor_def=dg.in_process_executor,
    description="Fetch every price source, validate, land versioned rows, then refresh the public views.",
)

fx_job = dg.define_asset_job(
    name=FX_JOB,
    selection=dg.AssetSelection.groups(FX_GROUP),
    executor_def=dg.in_process_executor,
    description="Fetch and land the ECB euro reference rates used to convert non-USD GPU prices.",
)

# The ECB publishes around 16:00 CET; 05:45 UTC picks up the previous day's fixing before the price run.
fx_schedule = dg.ScheduleDefinition(
    name=FX_SCHEDULE, job=fx_job, cron_schedule="45 5 * * *", execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.RUNNING,
)

# 06:00 UTC: after AWS's overnight price-list publication, before European working hours.
daily_schedule = dg.ScheduleDefinition(
    name=DAILY_SCHEDULE, job=refresh_job, cron_schedule="0 6 * * *", execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.RUNNING,
)
