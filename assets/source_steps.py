"""One Dagster step per group of sources (FX; AWS + GPU prices), each refreshing its sources concurrently.

The step fetches every selected source at once (pipelines.refresh.many_sources.fetch_all) holding nothing: no refresh
lock, no DuckDB file, no writer pool. Only then does it take the refresh lock and hand the bodies to
refresh_all, which parses and validates in threads and lands one source at a time. Each source keeps its own
asset and checks: a landed source is materialised; one that failed or did not change is observed instead.

A failed source, or one that landed with rows refused one by one, fails the step once the others have landed.
Dagster retries the step only when a failure is transient (FetchError.retryable), and a retry redoes only the
sources this run has not settled yet. SIGINT or SIGTERM stops the step between landings and fails it without a
retry.
"""

import signal
from collections.abc import Iterator

import dagster as dg
import duckdb

from assets.sources import (
    FETCH_RETRY_POLICY,
    LOCK_WAIT_S,
    check_result,
    outcome_metadata,
    source_asset_key,
    source_check_specs,
    source_spec,
)
from pipelines.errors import FetchError
from pipelines.orchestration.resources import FetcherResource, SourcesResource, WarehouseResource
from pipelines.refresh.many_sources import refresh_all
from pipelines.refresh.one_source import SourceOutcome
from pipelines.refresh.prefetch import fetch_all
from pipelines.refresh.threads import RefreshStopped, signals_stop
from pipelines.sources.file import SourcesFile, SourceSpec
from warehouse.files import WarehouseBusy
from warehouse.lock import RefreshLocked, exclusive_refresh
from warehouse.transactions import label_commits

Event = dg.AssetCheckResult | dg.MaterializeResult[None] | dg.AssetObservation
SETTLING_EVENTS = {dg.DagsterEventType.ASSET_MATERIALIZATION, dg.DagsterEventType.ASSET_OBSERVATION}


def build_source_step(
    name: str,
    group: list[tuple[SourceSpec, list[dg.AssetKey]]],
    retry_policy: dg.RetryPolicy = FETCH_RETRY_POLICY,
    op_tags: dict[str, str] | None = None,
) -> dg.AssetsDefinition:
    """A multi-asset with one asset per source of `group`, each depending on its listed keys (the FX sources);
    `op_tags` (a fanned-out step's host) go on its op."""
    keys = {source_asset_key(s.id): s.id for s, _deps in group}

    @dg.multi_asset(
        name=name,
        specs=[source_spec(s, deps) for s, deps in group],
        check_specs=[check for s, _deps in group for check in source_check_specs(s)],
        can_subset=True,
        op_tags=op_tags,
        retry_policy=retry_policy,  # no writer pool: the step waits on the network holding nothing
    )
    def _step(
        context: dg.AssetExecutionContext,
        warehouse: WarehouseResource,
        fetcher: FetcherResource,
        sources: SourcesResource,
    ) -> Iterator[Event]:
        wanted = {keys[k] for k in context.selected_asset_keys} - settled_earlier(context)
        declared = sources.load()
        todo = [s for s in declared.sources if s.id in wanted]
        if missing := wanted - {s.id for s in todo}:
            raise dg.Failure(f"not declared in {sources.sources_file}: {sorted(missing)}", allow_retries=False)
        label_commits("ratecard refresh", refresh=f"dagster run {context.run_id}", step=context.op_def.name)
        outcomes, stopped = refresh_group(todo, warehouse, fetcher, declared)
        for outcome in outcomes:
            yield from outcome_events(context, outcome)
        fail_for(outcomes, stopped)

    return _step


def settled_earlier(context: dg.AssetExecutionContext) -> set[str]:
    """Sources an earlier attempt of this step already settled (landed, unchanged or failed for good): each left
    a materialisation or an observation in the run's event log. A source that failed transiently left none."""
    if context.retry_number == 0:
        return set()
    entries = context.instance.all_logs(context.run_id, of_type=SETTLING_EVENTS)
    keys = {e.dagster_event.asset_key for e in entries if e.dagster_event is not None}
    return {key.path[-1] for key in keys if key is not None and key in context.selected_asset_keys}


def refresh_group(
    todo: list[SourceSpec], warehouse: WarehouseResource, fetcher: FetcherResource, declared: SourcesFile
) -> tuple[list[SourceOutcome], RefreshStopped | None]:
    """Fetch everything unlocked, then check and land under the refresh lock; the outcomes and, if a signal
    stopped it, the stop."""
    try:
        per_host, max_sources = declared.concurrency.per_host, declared.concurrency.max_sources
        with signals_stop(signal.SIGINT, signal.SIGTERM), fetcher.fetcher(per_host, declared.fetch) as client:
            fetched = fetch_all(todo, client, max_sources)
            with exclusive_refresh(warehouse.db_path, wait_s=LOCK_WAIT_S):
                outcomes = refresh_all(
                    todo,
                    db_path=warehouse.db_path,
                    archive=warehouse.archive(),
                    fetcher=client,
                    max_sources=max_sources,
                    fetched=fetched,
                )
        return outcomes, None
    except RefreshStopped as stop:
        return stop.outcomes, stop
    except (duckdb.IOException, WarehouseBusy, RefreshLocked):
        raise  # another process holds the file or the refresh lock: worth the retry policy
    except Exception as exc:  # a bug or a refused write: retrying the same bytes would fail the same way
        raise dg.Failure(description=f"land: {type(exc).__name__}: {exc}", allow_retries=False) from exc


def outcome_events(context: dg.AssetExecutionContext, outcome: SourceOutcome) -> Iterator[Event]:
    key = source_asset_key(outcome.source_id)
    for report in outcome.reports:
        result = check_result(key, report)
        if dg.AssetCheckKey(key, result.check_name or "") in context.selected_asset_check_keys:
            yield result
    for warning in outcome.warnings:
        context.log.warning(warning)
    if outcome.status == "landed":
        yield dg.MaterializeResult(asset_key=key, metadata=outcome_metadata(outcome))
    elif not transient(outcome):  # settled: a retry of the step leaves it alone
        yield dg.AssetObservation(asset_key=key, metadata=outcome_metadata(outcome))


def transient(outcome: SourceOutcome) -> bool:
    return isinstance(outcome.error, FetchError) and outcome.error.retryable


def fail_for(outcomes: list[SourceOutcome], stopped: RefreshStopped | None) -> None:
    """Fail the step if a source failed (retryable only if one failed transiently) or a signal stopped it."""
    failed = [o for o in outcomes if not o.ok]
    landed = ", ".join(o.source_id for o in outcomes if o.ok) or "nothing"
    if stopped is not None:
        cause = str(stopped.cause) or type(stopped.cause).__name__  # "signal 15", or KeyboardInterrupt
        raise dg.Failure(description=f"stopped by {cause}; settled before the stop: {landed}", allow_retries=False)
    if failed:
        raise dg.Failure(
            description="\n".join(str(o.error) for o in failed),
            metadata={"failed": [o.source_id for o in failed]},
            allow_retries=any(transient(o) for o in failed),
        )
    if partial := [o for o in outcomes if o.refused]:  # landed, but parts refused: again on a retry
        raise dg.Failure(
            description="\n".join(
                f"[{o.source_id}] {o.refused} row(s) or table(s) refused (named in its warnings)" for o in partial
            ),
            metadata={"refused": {o.source_id: o.refused for o in partial}},
            allow_retries=False,
        )
