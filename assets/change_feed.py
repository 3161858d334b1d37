"""After each publish: the change-feed webhook and the Parquet exports, as Dagster assets."""

from __future__ import annotations

import dagster as dg

from assets.publish import SNAPSHOT_KEY
from assets.sources import WRITER_POOL
from pipelines.orchestration.notify import notify_changes
from pipelines.orchestration.resources import SourcesResource, WarehouseResource
from pipelines.sources.file import load_sources_file
from warehouse.export import export_warehouse
from warehouse.lock import exclusive_refresh
from warehouse.publish import readable
from warehouse.target import local_dir

NOTIFY_KEY = dg.AssetKey("change_notifications")
EXPORTS_KEY = dg.AssetKey("warehouse_exports")
LOCK_WAIT_S = 600.0


@dg.asset(
    key=NOTIFY_KEY,
    group_name="publish",
    pool=WRITER_POOL,
    deps=[SNAPSHOT_KEY],
    description="Price changes over the sources file's [notify] threshold, POSTed to the webhook whose URL the "
    "named environment variable holds (never shown here). A failed POST is retried once and never fails the run.",
)
def change_notifications(warehouse: WarehouseResource, sources: SourcesResource) -> dg.MaterializeResult[None]:
    settings = load_sources_file(sources.sources_file).notify
    with exclusive_refresh(warehouse.db_path, wait_s=LOCK_WAIT_S):
        result = notify_changes(warehouse.db_path, settings)
    for message in result.messages:  # URL-free by construction
        dg.get_dagster_logger().info(message)
    return dg.MaterializeResult(
        metadata={
            "outcome": result.outcome,
            "changes_sent": dg.MetadataValue.int(result.changes_sent),
            "attempts": dg.MetadataValue.int(result.attempts),
            "webhook_env": settings.webhook_url_env or "(none)",
        }
    )


@dg.asset(
    key=EXPORTS_KEY,
    group_name="publish",
    kinds={"parquet"},
    pool=WRITER_POOL,  # queues with the publish like every step after it, though it only reads the snapshot
    deps=[SNAPSHOT_KEY],
    description="Every public view and the history tables (partitioned by fetch date) as Parquet beside the "
    "warehouse, in exports/, with manifest.json: schema, row counts, column comments, the snapshot they came from.",
)
def warehouse_exports(warehouse: WarehouseResource) -> dg.MaterializeResult[None]:
    # Reads the read-only snapshot: no refresh lock, never in a refresh's way.
    out = local_dir(warehouse.db_path) / "exports"
    manifest = export_warehouse(readable(warehouse.db_path), out, "parquet")
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(out)),
            "files": dg.MetadataValue.int(len(manifest["files"])),
            "rows": dg.MetadataValue.int(sum(f["rows"] for f in manifest["files"])),
            "snapshot_sha256": manifest["snapshot"].get("sha256", "(a lake: no file)"),
        }
    )
