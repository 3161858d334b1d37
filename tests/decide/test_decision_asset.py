"""The verdict as a Dagster asset: after a publish the sensor adds a partition per workload and asks for one run
each; a run writes the workload's Markdown beside the warehouse, the verdict in its metadata."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import duckdb
import pytest

from assets.decisions import decide_after_publish, workload_decision
from assets.publish import SNAPSHOT_KEY
from pipelines.decide.steps import gather
from pipelines.decide.verdict import decide
from pipelines.orchestration.resources import WarehouseResource

pytestmark = pytest.mark.xdist_group("decide")
WORKLOADS = ["chat-8b", "pretrain-1b", "summarise-batch"]


def evaluate(instance: dg.DagsterInstance, db: Path, cursor: str | None = None):  # type: ignore[no-untyped-def]
    context = dg.build_sensor_context(
        instance=instance, cursor=cursor, resources={"warehouse": WarehouseResource(db_path=str(db))}
    )
    return decide_after_publish(context)


def test_each_publish_adds_the_workloads_and_decides_each_once(decided):
    with dg.instance_for_test() as instance:
        assert isinstance(evaluate(instance, decided), dg.SkipReason)  # nothing published yet
        instance.report_runless_asset_event(dg.AssetMaterialization(SNAPSHOT_KEY))
        first = evaluate(instance, decided)
        assert sorted(r.partition_key for r in first.run_requests) == WORKLOADS
        assert [sorted(r.partition_keys) for r in first.dynamic_partitions_requests] == [WORKLOADS]
        assert isinstance(evaluate(instance, decided, first.cursor), dg.SkipReason)  # the same publish: nothing new
        instance.add_dynamic_partitions("workload", WORKLOADS)
        instance.report_runless_asset_event(dg.AssetMaterialization(SNAPSHOT_KEY))
        second = evaluate(instance, decided, first.cursor)
        assert second.dynamic_partitions_requests == []  # every workload has its partition already
        assert {r.run_key for r in second.run_requests}.isdisjoint({r.run_key for r in first.run_requests})


def test_a_run_writes_the_markdown_and_carries_the_verdict(decided):
    with duckdb.connect(str(decided), read_only=True) as con:
        expected = decide(gather(con, "pretrain-1b"))
    resources = {"warehouse": WarehouseResource(db_path=str(decided))}
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("workload", [*WORKLOADS, "gone"])
        result = dg.materialize(
            [workload_decision], partition_key="pretrain-1b", instance=instance, resources=resources
        )
        assert result.success
        metadata = result.asset_materializations_for_node("workload_decision")[0].metadata
        missing = dg.materialize(
            [workload_decision], partition_key="gone", instance=instance, resources=resources, raise_on_error=False
        )
    assert (metadata["verdict"].value, metadata["rule"].value) == (expected.verdict, expected.rule)
    written = Path(str(metadata["markdown"].value))
    assert written == decided.parent / "decisions" / "pretrain-1b.md"
    assert written.read_text().startswith("# pretrain-1b: keep or rent the NVIDIA GPU deployment")
    assert not missing.success
    failure = missing.failure_data_for_node("workload_decision")
    assert failure is not None and "workload 'gone': no pilot, run, plan or profile" in str(failure.user_failure_data)
