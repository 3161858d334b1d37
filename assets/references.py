"""The in-repo reference files (launch dates, NVIDIA GPU figures) as Dagster assets.

Each lands through the same check-and-land path as a fetched source (pipelines.refresh.references), so the
scheduled job turns an edited figure into a new version just as `ratecard refresh` does. Nothing is
downloaded: the provenance is `repo:<path>` and the file's SHA-256.
"""

from __future__ import annotations

import dagster as dg

from assets.sources import LOCK_WAIT_S, source_asset_key
from pipelines.kinds import kind_named
from pipelines.orchestration.resources import WarehouseResource
from pipelines.refresh.references import REFERENCE_FILES, land_reference
from warehouse.lock import exclusive_refresh


def build_reference_asset(source_id: str) -> dg.AssetsDefinition:
    _, path = REFERENCE_FILES[source_id]

    @dg.asset(
        key=source_asset_key(source_id),
        group_name=kind_named("spec").asset_group,
        description=f"The in-repo reference file {path}, checked and landed as a versioned source.",
    )
    def _reference(warehouse: WarehouseResource) -> dg.MaterializeResult[None]:
        with exclusive_refresh(warehouse.db_path, wait_s=LOCK_WAIT_S):
            outcome = land_reference(source_id, warehouse.db_path, warehouse.archive())
        if outcome.status not in ("landed", "unchanged"):  # quarantined: the last good version stays current
            raise dg.Failure(description=str(outcome.error), allow_retries=False)
        return dg.MaterializeResult(
            metadata={
                "outcome": outcome.status,
                "provenance": f"repo:{path}",
                "sha256": outcome.sha256 or "",
                "rows_inserted": outcome.inserted,
                "rows_closed": outcome.closed,
            }
        )

    return _reference


REFERENCE_ASSETS = [build_reference_asset(source_id) for source_id in REFERENCE_FILES]
