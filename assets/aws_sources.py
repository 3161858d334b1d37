"""One Dagster asset per AWS source: a thin shell over pipelines.refresh.

The Great Expectations gate runs inside the asset, before anything is written; its results are reported as
asset checks (with statistics as metadata) so the UI shows why a batch was refused.
"""


import dagster as dg

from pipelines.errors import FetchError
from pipelines.refresh import SourceOutcome, refresh_source
from pipelines.resources import FetcherResource, SourcesResource, WarehouseResource
from pipelines.sources import SourceSpec
from schemas.expectations import PRICES_SUITE, SPECS_SUITE, ValidationReport

SOURCE_GROUP = "aws_sources"
SOURCE_KEY_PREFIX = "sources"
WRITER_POOL = "duckdb_writer"
CHECK_FOR_SUITE = {SPECS_SUITE: "ge_instance_specs", PRICES_SUITE: "ge_instance_prices"}

# Transport trouble is worth another go a minute later; parse and validation failures are not.
FETCH_RETRY_POLICY = dg.RetryPolicy(max_retries=2, delay=30, backoff=dg.Backoff.EXPONENTIAL)


def source_asset_key(source_id: str) -> dg.AssetKey:
    return dg.AssetKey([SOURCE_KEY_PREFIX, source_id])


def check_result(key: dg.AssetKey, report: ValidationReport) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        asset_key=key,
        check_name=CHECK_FOR_SUITE[report.suite],
        passed=report.success,
        metadata={
            "rows": report.row_count,
            "expectations_evaluated": report.evaluated,
            "expectations_successful": report.successful,
            "failures": dg.MetadataValue.json(report.failures()),
        },
    )


def changes_markdown(outcome: SourceOutcome) -> str:
    if not outcome.changes:
        return "No price changed."
    lines = ["| change | instance | kind | region | USD / instance-hour |", "|---|---|---|---|---|"]
    lines += [f"| {c['change']} | {c['instance_type']} | {c['price_kind']} | {c['region']} | "
              f"{c['usd_per_instance_hour']} |" for c in outcome.changes]
    return "\n".join(lines)


def outcome_metadata(outcome: SourceOutcome) -> dict:
    return {
        "outcome": outcome.status,
        "url": dg.MetadataValue.url(outcome.url),
        "sha256": outcome.sha256 or "",
        "fetch_id": outcome.fetch_id or 0,
        "spec_rows": outcome.specs,
        "price_rows": outcome.prices,
        "rows_inserted": outcome.inserted,
        "rows_closed": outcome.closed,
        "rows_unchanged": outcome.unchanged,
        "changes": dg.MetadataValue.md(changes_markdown(outcome)),
    }


def build_source_asset(source: SourceSpec, retry_policy: dg.RetryPolicy = FETCH_RETRY_POLICY) -> dg.AssetsDefinition:
    key = source_asset_key(source.id)

    @dg.asset(
        key=key,
        group_name=SOURCE_GROUP,
        description=f"{source.title or source.id}: fetched, validated and landed as versioned rows.",
        kinds={"python", "duckdb"},
        pool=WRITER_POOL,
        retry_policy=retry_policy,
        check_specs=[dg.AssetCheckSpec(name, asset=key) for name in CHECK_FOR_SUITE.values()],
        metadata={"source_id": source.id, "adapter": source.adapter},
    )
    def _source_asset(context: dg.AssetExecutionContext, warehouse: WarehouseResource,
                      fetcher: FetcherResource, sources: SourcesResource):
        spec = sources.get(source.id)
        with fetcher.fetcher() as client:
            outcome = refresh_source(spec, fetcher=client, db_path=warehouse.db_path, archive=warehouse.archive())
        for report in outcome.reports:
            yield check_result(key, report)
        if outcome.error is not None:
            retryable = isinstance(outcome.error, FetchError) and outcome.error.retryable
            raise dg.Failure(description=str(outcome.error), metadata=outcome_metadata(outcome),
                             allow_retries=retryable)
        context.log.info(f"{source.id}: {outcome.status}, +{outcome.inserted} / -{outcome.closed} rows")
        yield dg.MaterializeResult(metadata=outcome_metadata(outcome))

    return _source_asset
