"""The `backfill_pricelist` Dagster job: `ratecard backfill pricelist`, launched from Dagster with run config.

Launched by hand (no schedule): once after installing ratecard, and again with `since` after a gap. It carries
the warehouse tag, so it queues behind a daily refresh instead of interleaving with it; each version lands under
the refresh lock as well. Versions landed before are skipped, so a failed run is simply launched again.
"""

# No `from __future__ import annotations`: Dagster reads the op's annotations (its config class) at definition time.

from datetime import date

import dagster as dg
from pydantic import Field

from pipelines.orchestration.resources import FetcherResource, SourcesResource, WarehouseResource
from pipelines.orchestration.schedules import WAREHOUSE_TAG
from pipelines.pricelist.steps.backfill import backfill_pricelist, ec2_region_indexes

BACKFILL_JOB = "backfill_pricelist"
LOCK_WAIT_S = 600.0  # a version waits this long for a daily refresh to finish landing


class BackfillConfig(dg.Config):
    since: str = ""  # YYYY-MM-DD: only versions in effect on or after it; empty for every version
    regions: list[str] = Field(default_factory=list)  # only these regions; empty: every region of each version


@dg.op(description="Land every past version of the EC2 offer as history from its effective date.")
def backfill_pricelist_op(
    context: dg.OpExecutionContext,
    config: BackfillConfig,
    warehouse: WarehouseResource,
    fetcher: FetcherResource,
    sources: SourcesResource,
) -> dg.Output[int]:
    indexes = ec2_region_indexes(sources.load().sources)
    if not indexes:
        raise dg.Failure(f"{sources.sources_file} declares no EC2 price-list region index", allow_retries=False)
    with fetcher.fetcher() as client:
        report = backfill_pricelist(
            indexes[0],
            fetcher=client,
            db_path=warehouse.db_path,
            archive=warehouse.archive(),
            since=date.fromisoformat(config.since) if config.since else None,
            regions=config.regions or None,
            lock_wait_s=LOCK_WAIT_S,
            on_unit=lambda done: context.log.info(f"{done.version} {done.region_code}: {done.outcome.status}"),
        )
    metadata = {
        "versions": len(report.versions),
        "units_landed": sum(u.outcome.status == "landed" for u in report.units),
        "units_skipped": sum(u.outcome.status == "unchanged" for u in report.units),
        "rows_inserted": report.inserted,
    }
    problems = [str(e) for e in report.errors] + [str(u.outcome.error) for u in report.failed]
    if problems:
        raise dg.Failure(description="; ".join(problems), metadata=metadata, allow_retries=False)
    return dg.Output(report.inserted, metadata=metadata)


@dg.job(
    name=BACKFILL_JOB,
    tags=WAREHOUSE_TAG,
    executor_def=dg.in_process_executor,
    description="Land every past version of the EC2 offer as history from its effective date (run by hand).",
)
def backfill_job() -> None:
    backfill_pricelist_op()
