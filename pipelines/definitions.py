"""The one place the Dagster Definitions are assembled (what `dagster dev` and the CLI load)."""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg

from assets.change_feed import change_notifications, warehouse_exports
from assets.dashboard import dashboard_site
from assets.decisions import decide_after_publish, decisions_job, workload_decision
from assets.fan_out import build_index_asset
from assets.publish import build_published_snapshot
from assets.references import REFERENCE_ASSETS
from assets.source_steps import build_source_step
from assets.sources import FETCH_RETRY_POLICY, source_asset_key
from assets.views import build_view_assets
from pipelines.kinds import kind_named, read_by_others
from pipelines.orchestration.backfill_job import backfill_job
from pipelines.orchestration.maintenance_job import maintain_job, maintain_schedule
from pipelines.orchestration.resources import FetcherResource, SourcesResource, WarehouseResource
from pipelines.orchestration.schedules import (
    HOST_TAG,
    daily_price_schedule,
    daily_schedule,
    fanned_out_refresh_job,
    fx_job,
    fx_schedule,
    publish_after_refresh,
    publish_job,
    refresh_job,
)
from pipelines.refresh.plan import refresh_plan
from pipelines.sources.file import SourceSpec, load_sources_file
from pipelines.sources.locations import DEFAULT_SOURCES_FILE
from warehouse.files import DEFAULT_DB_PATH
from warehouse.target import WAREHOUSE_ENV

SOURCES_ENV = "RATECARD_SOURCES"
DB_ENV = "RATECARD_DB"
# Points every source at `<base>/<sample path>` (e.g. `python -m http.server -d pipelines/samples`).
OFFLINE_ENV = "RATECARD_OFFLINE_BASE_URL"
WORKERS_ENV = "RATECARD_DAGSTER_WORKERS"  # above 1: the price refresh a step per source, that many at once
FX_STEP = "fx_sources"
PRICES_STEP = "price_sources"
AFTER_INDEXES_STEP = "spot_sources"  # the sources that read what the index sources land (the spot feed)


def build_definitions(
    sources_file: Path | str | None = None,
    db_path: Path | str | None = None,
    *,
    offline_base_url: str = "",
    fetcher: FetcherResource | None = None,
    fetch_retry_policy: dg.RetryPolicy = FETCH_RETRY_POLICY,
    workers: int | None = None,
) -> dg.Definitions:
    """`workers` (default RATECARD_DAGSTER_WORKERS, else 1): above 1, the price refresh fans out, a step per source in
    processes of their own, that many at once (pipelines/orchestration/schedules.py: fanned_out_refresh_job)."""
    sources_file = str(sources_file or os.environ.get(SOURCES_ENV) or DEFAULT_SOURCES_FILE)
    # RATECARD_WAREHOUSE (a file or a ducklake: location) wins; RATECARD_DB is its older name, still honoured.
    db_path = str(db_path or os.environ.get(WAREHOUSE_ENV) or os.environ.get(DB_ENV) or DEFAULT_DB_PATH)
    declared = load_sources_file(sources_file)
    sources = declared.sources
    plan = refresh_plan(sources)
    workers = workers if workers is not None else int(os.environ.get(WORKERS_ENV) or 1)
    # The index sources others read (the EC2 region index, whose landed types price the spot feed and the Savings
    # Plans rates, which follow it).
    first_indexes = [source_asset_key(s.id) for s in plan.first_indexes]
    # One step per group, each fetching its sources at once. The kinds others read (FX: GPU prices convert with its
    # rates) land in their own step first, and the sources that read them depend on them.
    first = [s for s in plan.units if s.kind in read_by_others()]
    first_keys = [source_asset_key(s.id) for s in first]
    steps: dict[str, list[tuple[SourceSpec, list[dg.AssetKey]]]] = {
        FX_STEP: [(s, []) for s in first],
        PRICES_STEP: [(s, first_keys if kind_named(s.kind).reads_landed else []) for s in plan.units if s not in first],
        AFTER_INDEXES_STEP: [(s, first_indexes) for s in plan.after_indexes],
    }
    if workers > 1:  # a step per source, named by it, tagged with its host for the executor's per-host limit
        steps = {f"source_{s.id}": [(s, deps)] for group in steps.values() for s, deps in group}
    source_assets = [
        build_source_step(
            name, group, fetch_retry_policy, op_tags={HOST_TAG: group[0][0].host} if workers > 1 else None
        )
        for name, group in steps.items()
        if group
    ]
    prices_job = refresh_job if workers <= 1 else fanned_out_refresh_job(workers, declared.concurrency.per_host)
    source_assets += [
        build_index_asset(s, fetch_retry_policy, deps=[] if s in plan.first_indexes else first_indexes)
        for s in plan.indexes
    ]
    source_assets += REFERENCE_ASSETS  # the in-repo reference files, landed like any source
    view_assets, view_checks = build_view_assets(plan.units)
    return dg.Definitions(
        assets=[
            *source_assets,
            *view_assets,
            build_published_snapshot([key for view in view_assets for key in view.keys]),
            dashboard_site,
            change_notifications,
            warehouse_exports,
            workload_decision,
        ],
        asset_checks=view_checks,
        jobs=[fx_job, prices_job, publish_job, backfill_job, decisions_job, maintain_job],
        schedules=[
            fx_schedule,
            daily_schedule if workers <= 1 else daily_price_schedule(prices_job),
            maintain_schedule,
        ],
        sensors=[publish_after_refresh, decide_after_publish],
        resources={
            "warehouse": WarehouseResource(db_path=db_path),
            "fetcher": fetcher or FetcherResource(),
            "sources": SourcesResource(
                sources_file=sources_file, offline_base_url=offline_base_url or os.environ.get(OFFLINE_ENV, "")
            ),
        },
    )


defs = build_definitions()
