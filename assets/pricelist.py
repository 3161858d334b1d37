"""The AWS price-list source as one Dagster asset: its region index, then each changed region in turn.

Each region lands or is quarantined on its own (pipelines.refresh.pricelist_units.refresh_regions), so one broken
region fails the step loudly, naming it, only after every other region has landed. The Great Expectations
gate runs per region; the asset check passes when every region validated passes.
"""

from collections.abc import Iterator
from typing import Any

import dagster as dg
import duckdb

from assets.sources import FETCH_RETRY_POLICY, LOCK_WAIT_S, check_for_suite, source_asset_key
from pipelines.errors import FetchError
from pipelines.kinds import kind_named
from pipelines.orchestration.resources import FetcherResource, SourcesResource, WarehouseResource
from pipelines.pricelist.suite import PRICELIST_SUITE
from pipelines.refresh.one_source import SourceOutcome
from pipelines.refresh.pricelist_units import refresh_regions
from pipelines.sources.file import SourceSpec
from warehouse.files import WarehouseBusy
from warehouse.lock import RefreshLocked

CHECK = check_for_suite(PRICELIST_SUITE)


def regions_markdown(outcomes: list[SourceOutcome]) -> str:
    lines = ["| unit | outcome | opened | closed | error |", "|---|---|---|---|---|"]
    lines += [
        f"| {o.source_id} | {o.status} | {o.inserted} | {o.closed} | {str(o.error or '').replace('|', '/')} |"
        for o in outcomes
    ]
    return "\n".join(lines)


def regions_metadata(outcomes: list[SourceOutcome]) -> dict[str, Any]:
    statuses = [o.status for o in outcomes]
    return {
        "regions": dg.MetadataValue.md(regions_markdown(outcomes)),
        **{f"regions_{status}": statuses.count(status) for status in sorted(set(statuses))},
        "rows_inserted": sum(o.inserted for o in outcomes),
        "rows_closed": sum(o.closed for o in outcomes),
    }


def gate_result(key: dg.AssetKey, outcomes: list[SourceOutcome]) -> dg.AssetCheckResult:
    reports = [report for o in outcomes for report in o.reports]
    return dg.AssetCheckResult(
        asset_key=key,
        check_name=CHECK,
        passed=all(report.success for report in reports),
        metadata={
            "regions_validated": len(reports),
            "rows": sum(report.row_count for report in reports),
            "failures": dg.MetadataValue.json([f for report in reports for f in report.failures()]),
        },
    )


def build_pricelist_asset(
    source: SourceSpec, retry_policy: dg.RetryPolicy = FETCH_RETRY_POLICY, deps: list[dg.AssetKey] | None = None
) -> dg.AssetsDefinition:
    """`deps`: the region indexes whose landed types this one's rates are priced with (Savings Plans: the EC2 one)."""
    key = source_asset_key(source.id)

    @dg.asset(
        key=key,
        group_name=kind_named("pricelist").asset_group,
        description=f"{source.title or source.id}: each region's offer file, fetched when its version moved, "
        "validated and landed on its own.",
        kinds={"python", "duckdb"},
        retry_policy=retry_policy,
        check_specs=[dg.AssetCheckSpec(CHECK, asset=key)],
        metadata={"source_id": source.id, "adapter": source.adapter},
        deps=deps or [],
    )
    def _pricelist_asset(
        context: dg.AssetExecutionContext,
        warehouse: WarehouseResource,
        fetcher: FetcherResource,
        sources: SourcesResource,
    ) -> Iterator[dg.AssetCheckResult | dg.MaterializeResult[None]]:
        sources_file = sources.load()
        declared = {s.id: s for s in sources_file.sources}
        if source.id not in declared:
            raise dg.Failure(f"not declared in {sources.sources_file}: {source.id}", allow_retries=False)
        spec = declared[source.id]
        try:
            with fetcher.fetcher(sources_file.concurrency.per_host, sources_file.fetch) as client:
                outcomes = refresh_regions(
                    spec,
                    fetcher=client,
                    db_path=warehouse.db_path,
                    archive=warehouse.archive(),
                    lock_wait_s=LOCK_WAIT_S,
                )
        except (duckdb.IOException, WarehouseBusy, RefreshLocked):
            raise  # another process holds the file or the refresh lock: worth the retry policy
        yield gate_result(key, outcomes)
        for warning in (w for o in outcomes for w in o.warnings):
            context.log.warning(warning)
        failed = [o for o in outcomes if o.error is not None]
        if failed:
            retryable = all(isinstance(o.error, FetchError) and o.error.retryable for o in failed)
            raise dg.Failure(
                description="; ".join(f"{o.source_id}: {o.error}" for o in failed),
                metadata=regions_metadata(outcomes),
                allow_retries=retryable,
            )
        context.log.info(f"{source.id}: " + ", ".join(f"{o.source_id} {o.status}" for o in outcomes))
        yield dg.MaterializeResult(metadata=regions_metadata(outcomes))

    return _pricelist_asset
