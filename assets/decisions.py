"""Each workload's verdict as a Dagster asset: one partition per workload, decided again after every publish.

The workloads are data (the pilots, training runs, plans and traffic profiles a team lands), so the asset's
partitions are dynamic: the sensor adds a partition for each workload the new snapshot names, then asks for one run
per workload. A materialisation writes the decision as Markdown beside the warehouse (decisions/<workload>.md) and
carries the verdict, its rule and its reason as metadata, so the UI shows what was decided and why.
"""

import dagster as dg

from assets.publish import SNAPSHOT_KEY
from assets.sources import WRITER_POOL
from pipelines.orchestration.resources import WarehouseResource
from warehouse.db import connect
from warehouse.publish import readable
from warehouse.target import local_dir

DECISION_KEY = dg.AssetKey("workload_decision")
DECISIONS_JOB = "decide_workloads"
DECISIONS_SENSOR = "decide_after_publish"
WORKLOAD_PARTITIONS = "workload"
WORKLOADS = dg.DynamicPartitionsDefinition(name=WORKLOAD_PARTITIONS)
# Characters Dagster refuses in a partition key: a workload named with one is reported, never decided here.
UNUSABLE_IN_KEYS = ("...", "\a", "\b", "\f", "\n", "\r", "\t", "\v", "\0")


class UnknownWorkload(dg.Failure):
    def __init__(self, workload: str, location: str) -> None:
        super().__init__(f"workload {workload!r}: no pilot, run, plan or profile in {location}'s published snapshot")


@dg.asset(
    key=DECISION_KEY,
    group_name="decisions",
    kinds={"markdown"},
    partitions_def=WORKLOADS,
    pool=WRITER_POOL,  # it only reads the snapshot, but queues behind a publish, as the dashboard does
    deps=[SNAPSHOT_KEY],
    description="One workload's walk of the guide (software gate, pilot, bill, payback) from the published "
    "snapshot, and the verdict with the rule that decided it; written as decisions/<workload>.md beside the "
    "warehouse, the verdict in the metadata.",
)
def workload_decision(context: dg.AssetExecutionContext, warehouse: WarehouseResource) -> dg.MaterializeResult[None]:
    from pipelines.decide.render import decision_file_name, markdown
    from pipelines.decide.steps import gather, workloads
    from pipelines.decide.verdict import decide

    workload = context.partition_key
    with connect(readable(warehouse.db_path), read_only=True) as con:
        if workload not in workloads(con):
            raise UnknownWorkload(workload, str(warehouse.db_path))
        steps = gather(con, workload)
    verdict = decide(steps)
    out = local_dir(warehouse.db_path) / "decisions" / decision_file_name(workload, "md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(markdown(steps, verdict), encoding="utf-8")
    return dg.MaterializeResult(
        metadata={
            "verdict": verdict.verdict,
            "rule": verdict.rule or "(none: not decidable yet)",
            "reason": verdict.reason,
            "missing": dg.MetadataValue.json(verdict.missing),
            "flags": dg.MetadataValue.json(verdict.flags),
            "work": steps.work,
            "markdown": dg.MetadataValue.path(str(out)),
        }
    )


decisions_job = dg.define_asset_job(
    name=DECISIONS_JOB,
    selection=dg.AssetSelection.assets(DECISION_KEY),
    partitions_def=WORKLOADS,
    executor_def=dg.in_process_executor,
    description="Decide one workload again from the published snapshot.",
)


@dg.sensor(
    name=DECISIONS_SENSOR,
    job=decisions_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def decide_after_publish(
    context: dg.SensorEvaluationContext, warehouse: WarehouseResource
) -> dg.SensorResult | dg.SkipReason:
    """After each new snapshot: a partition for every workload it names, and one run per workload, keyed by the
    snapshot's materialisation so each publish decides each workload once."""
    from pipelines.decide.steps import workloads

    records = context.instance.fetch_materializations(SNAPSHOT_KEY, limit=1).records
    published = records[0] if records else None
    if published is None or str(published.storage_id) == context.cursor:
        return dg.SkipReason("no snapshot has been published since the last decisions")
    with connect(readable(warehouse.db_path), read_only=True) as con:
        named = workloads(con)
    usable = [w for w in named if w and not any(bad in w for bad in UNUSABLE_IN_KEYS)]
    for refused in sorted(set(named) - set(usable)):
        context.log.warning(f"workload {refused!r} is not decided here: its name cannot be a Dagster partition key")
    known = set(context.instance.get_dynamic_partitions(WORKLOAD_PARTITIONS))
    new = [w for w in usable if w not in known]
    return dg.SensorResult(
        run_requests=[dg.RunRequest(partition_key=w, run_key=f"{w}@{published.storage_id}") for w in usable],
        dynamic_partitions_requests=[WORKLOADS.build_add_request(new)] if new else [],
        cursor=str(published.storage_id),
    )
