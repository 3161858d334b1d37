"""The `maintain_lake` Dagster job: `ratecard lake maintain` on a schedule (warehouse/lake_maintenance.py).

Daily at 07:30 UTC, after the price refresh and its publish. It carries the warehouse tag, so it queues behind a
refresh rather than merging files while one lands. On a DuckDB file it does nothing, and says so.
"""

# No `from __future__ import annotations`: Dagster reads the op's annotations (its config class) at definition time.

import dagster as dg

from pipelines.orchestration.resources import WarehouseResource
from pipelines.orchestration.schedules import WAREHOUSE_TAG, daily_at
from warehouse.target import is_lake

MAINTAIN_JOB = "maintain_lake"
MAINTAIN_SCHEDULE = "daily_lake_maintenance"


class MaintainConfig(dg.Config):
    keep_days: float = 30.0  # snapshots of this many days stay attachable
    grace_hours: float = 24.0  # a file no snapshot needs is deleted only once this old


@dg.op(description="Merge a lake's small files, expire old snapshots, delete files no snapshot references.")
def maintain_lake_op(
    context: dg.OpExecutionContext, config: MaintainConfig, warehouse: WarehouseResource
) -> dg.Output[int]:
    if not is_lake(warehouse.db_path):
        context.log.info(f"{warehouse.db_path} is a DuckDB file: publishing writes it compacted, nothing to do")
        return dg.Output(0, metadata={"skipped": "a DuckDB file needs no upkeep"})
    from warehouse.db import connect
    from warehouse.lake_maintenance import maintain_lake

    with connect(warehouse.db_path) as con:
        report = maintain_lake(con, keep_days=config.keep_days, grace_hours=config.grace_hours)
    for line in report.lines():
        context.log.info(line)
    deleted = report.old_files_deleted + report.orphans_deleted
    metadata = {
        "files_before": report.before.files,
        "files_after": report.after.files,
        "snapshots_expired": report.expired,
        "files_deleted": deleted,
        "orphans_deleted": report.orphans_deleted,
    }
    return dg.Output(deleted, metadata=metadata)


@dg.job(
    name=MAINTAIN_JOB,
    tags=WAREHOUSE_TAG,
    executor_def=dg.in_process_executor,
    description="A lake's upkeep: compact small files, expire old snapshots, delete unreferenced files.",
)
def maintain_job() -> None:
    maintain_lake_op()


maintain_schedule = daily_at(MAINTAIN_SCHEDULE, maintain_job, "30 7 * * *")
