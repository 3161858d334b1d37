"""The last step of a refresh: publish the read-only snapshot SQL clients and dashboards open."""

import os

import dagster as dg

from assets.sources import WRITER_POOL
from pipelines.orchestration.resources import WarehouseResource
from warehouse.lock import exclusive_refresh
from warehouse.publish import publish_snapshot

SNAPSHOT_KEY = dg.AssetKey("published_snapshot")
LOCK_WAIT_S = 600.0


def build_published_snapshot(views: list[dg.AssetKey]) -> dg.AssetsDefinition:
    """The snapshot, after every view asset (it publishes what they count and check)."""

    @dg.asset(
        key=SNAPSHOT_KEY,
        group_name="publish",
        kinds={"duckdb"},
        pool=WRITER_POOL,
        deps=views,
        description="prices.snapshot.duckdb: a copy of the warehouse in a storage format DuckDB 1.1+ clients "
        "read, renamed into place atomically, that SQL clients open read-only without ever blocking a refresh.",
    )
    def published_snapshot(warehouse: WarehouseResource) -> dg.MaterializeResult[None]:
        with exclusive_refresh(warehouse.db_path, wait_s=LOCK_WAIT_S):
            path = publish_snapshot(warehouse.db_path)
        if isinstance(path, str):  # a lake: nothing copied, its snapshot named
            return dg.MaterializeResult(metadata={"lake_snapshot": path})
        return dg.MaterializeResult(
            metadata={"path": dg.MetadataValue.path(str(path)), "bytes": dg.MetadataValue.int(os.path.getsize(path))}
        )

    return published_snapshot
