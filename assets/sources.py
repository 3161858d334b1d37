"""One Dagster asset per source (AWS pages, GPU providers, ECB FX), materialised by one step per group.

A step (assets/source_steps.py) refreshes its sources concurrently through pipelines.refresh.many_sources. The Great
Expectations gate runs before anything is written; its results are reported as asset checks (with statistics
as metadata) so the UI shows why a batch was refused. GPU sources depend on the FX source, so a run lands
today's rates before converting any non-USD price.
"""

from functools import cache
from typing import Any

import dagster as dg

from pipelines.kinds import kind_named, source_kind_names
from pipelines.refresh.one_source import SourceOutcome
from pipelines.sources.file import SourceSpec
from schemas.gx_runner import ValidationReport

SOURCE_KEY_PREFIX = "sources"
WRITER_POOL = "duckdb_writer"
LOCK_WAIT_S = 600.0  # a CLI refresh holding the warehouse: wait for it rather than fail
# Transient transport trouble (timeouts, resets, 429/5xx) is worth another go a minute later; a host that does
# not resolve or refuses (no network), parse and validation failures are not: FetchError.retryable says which.
FETCH_RETRY_POLICY = dg.RetryPolicy(max_retries=2, delay=30, backoff=dg.Backoff.EXPONENTIAL)


@cache
def checks_by_suite() -> dict[str, str]:
    """Suite -> the asset check its results are reported as, as each kind names it."""
    return dict(check for name in source_kind_names() for check in kind_named(name).checks)


def check_for_suite(suite: str) -> str:
    return checks_by_suite()[suite]


def source_asset_key(source_id: str) -> dg.AssetKey:
    return dg.AssetKey([SOURCE_KEY_PREFIX, source_id])


def check_result(key: dg.AssetKey, report: ValidationReport) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        asset_key=key,
        check_name=check_for_suite(report.suite),
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
        return "Nothing changed."
    names = list(outcome.changes[0])
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines += ["| " + " | ".join(str(c[n]) for n in names) + " |" for c in outcome.changes]
    return "\n".join(lines)


def outcome_metadata(outcome: SourceOutcome) -> dict[str, Any]:
    return {
        "outcome": outcome.status,
        "url": dg.MetadataValue.url(outcome.url),
        "sha256": outcome.sha256 or "",
        "fetch_id": outcome.fetch_id or 0,
        **outcome.counts,
        "rows_inserted": outcome.inserted,
        "rows_closed": outcome.closed,
        "rows_unchanged": outcome.unchanged,
        "changes": dg.MetadataValue.md(changes_markdown(outcome)),
        "warnings": dg.MetadataValue.json(outcome.warnings),
    }


def source_spec(source: SourceSpec, deps: list[dg.AssetKey]) -> dg.AssetSpec:
    """The asset of one source; skippable: a source that failed or did not change is not materialised."""
    return dg.AssetSpec(
        key=source_asset_key(source.id),
        group_name=kind_named(source.kind).asset_group,
        deps=deps,
        description=f"{source.title or source.id}: fetched, validated and landed as versioned rows.",
        kinds={"python", "duckdb"},
        metadata={"source_id": source.id, "adapter": source.adapter},
        skippable=True,
    )


def source_check_specs(source: SourceSpec) -> list[dg.AssetCheckSpec]:
    key = source_asset_key(source.id)
    return [dg.AssetCheckSpec(check, asset=key) for _suite, check in kind_named(source.kind).checks]
