"""An index source (the price list's region index) as one Dagster asset: its index, then each changed unit in turn.

Each unit lands or is quarantined on its own (pipelines.refresh.fan_out.refresh_units), so one broken unit fails
the step loudly, naming it, only after every other unit has landed. The Great Expectations suites run per unit;
each of the kind's asset checks passes when every unit it validated passes.
"""

from collections.abc import Iterator
from typing import Any

import dagster as dg
import duckdb

from assets.sources import FETCH_RETRY_POLICY, LOCK_WAIT_S, source_asset_key
from pipelines.errors import FetchError
from pipelines.kinds import kind_named
from pipelines.orchestration.resources import FetcherResource, SourcesResource, WarehouseResource
from pipelines.refresh.fan_out import refresh_units
from pipelines.refresh.one_source import SourceOutcome
from pipelines.sources.file import SourceSpec
from warehouse.files import WarehouseBusy
from warehouse.lock import RefreshLocked


def units_markdown(outcomes: list[SourceOutcome]) -> str:
    lines = ["| unit | outcome | opened | closed | error |", "|---|---|---|---|---|"]
    lines += [
        f"| {o.source_id} | {o.status} | {o.inserted} | {o.closed} | {str(o.error or '').replace('|', '/')} |"
        for o in outcomes
    ]
    return "\n".join(lines)


def units_metadata(outcomes: list[SourceOutcome]) -> dict[str, Any]:
    statuses = [o.status for o in outcomes]
    return {
        "units": dg.MetadataValue.md(units_markdown(outcomes)),
        **{f"units_{status}": statuses.count(status) for status in sorted(set(statuses))},
        "rows_inserted": sum(o.inserted for o in outcomes),
        "rows_closed": sum(o.closed for o in outcomes),
    }


def gate_result(key: dg.AssetKey, suite: str, check: str, outcomes: list[SourceOutcome]) -> dg.AssetCheckResult:
    reports = [report for o in outcomes for report in o.reports if report.suite == suite]
    return dg.AssetCheckResult(
        asset_key=key,
        check_name=check,
        passed=all(report.success for report in reports),
        metadata={
            "units_validated": len(reports),
            "rows": sum(report.row_count for report in reports),
            "failures": dg.MetadataValue.json([f for report in reports for f in report.failures()]),
        },
    )


def build_index_asset(
    source: SourceSpec, retry_policy: dg.RetryPolicy = FETCH_RETRY_POLICY, deps: list[dg.AssetKey] | None = None
) -> dg.AssetsDefinition:
    """`deps`: the index sources whose units this one's read (Savings Plans rates: the EC2 regions' types)."""
    key = source_asset_key(source.id)
    kind = kind_named(source.kind)

    @dg.asset(
        key=key,
        group_name=kind.asset_group,
        description=f"{source.title or source.id}: each file its index names, fetched when its version moved, "
        "validated and landed on its own.",
        kinds={"python", "duckdb"},
        retry_policy=retry_policy,
        check_specs=[dg.AssetCheckSpec(check, asset=key) for _suite, check in kind.checks],
        metadata={"source_id": source.id, "adapter": source.adapter},
        deps=deps or [],
    )
    def _index_asset(
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
                outcomes = refresh_units(
                    spec,
                    fetcher=client,
                    db_path=warehouse.db_path,
                    archive=warehouse.archive(),
                    lock_wait_s=LOCK_WAIT_S,
                )
        except (duckdb.IOException, WarehouseBusy, RefreshLocked):
            raise  # another process holds the file or the refresh lock: worth the retry policy
        for suite, check in kind.checks:
            yield gate_result(key, suite, check, outcomes)
        for warning in (w for o in outcomes for w in o.warnings):
            context.log.warning(warning)
        failed = [o for o in outcomes if o.error is not None]
        if failed:
            retryable = all(isinstance(o.error, FetchError) and o.error.retryable for o in failed)
            raise dg.Failure(
                description="; ".join(f"{o.source_id}: {o.error}" for o in failed),
                metadata=units_metadata(outcomes),
                allow_retries=retryable,
            )
        context.log.info(f"{source.id}: " + ", ".join(f"{o.source_id} {o.status}" for o in outcomes))
        yield dg.MaterializeResult(metadata=units_metadata(outcomes))

    return _index_asset
