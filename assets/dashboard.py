"""The offline dashboard, regenerated from the snapshot on every publish."""

import dagster as dg

from assets.publish import SNAPSHOT_KEY
from assets.sources import WRITER_POOL
from pipelines.dashboard import site_dir_for
from pipelines.orchestration.resources import WarehouseResource
from warehouse.publish import readable

DASHBOARD_KEY = dg.AssetKey("dashboard_site")


@dg.asset(
    key=DASHBOARD_KEY,
    group_name="publish",
    kinds={"html"},
    # It only reads the snapshot, but queues with the writers so it always sees the publish just made.
    pool=WRITER_POOL,
    deps=[SNAPSHOT_KEY],
    description="The static dashboard (dashboard/ beside the warehouse): today's prices, cheapest GPUs, "
    "history charts, each workload's decision, freshness, quarantine and the data dictionary; opens from file:// "
    "with no network.",
)
def dashboard_site(warehouse: WarehouseResource) -> dg.MaterializeResult[None]:
    from pipelines.dashboard.build import build_dashboard

    out = site_dir_for(warehouse.db_path)
    pages = build_dashboard(readable(warehouse.db_path), out)
    return dg.MaterializeResult(
        metadata={"index": dg.MetadataValue.path(str(out / "index.html")), "pages": dg.MetadataValue.int(len(pages))}
    )
