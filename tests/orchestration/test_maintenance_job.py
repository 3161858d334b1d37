"""The `maintain_lake` Dagster job: on a lake it runs the upkeep and reports it as metadata; on a DuckDB file it
does nothing and says so."""

from __future__ import annotations

import pytest

from pipelines.orchestration.maintenance_job import MAINTAIN_JOB, maintain_job
from pipelines.orchestration.resources import WarehouseResource
from tests.support.backends import warehouse_at
from warehouse.db import connect


def output_metadata(result) -> dict[str, object]:  # type: ignore[no-untyped-def]
    (materialised,) = [e for e in result.all_node_events if e.event_type_value == "STEP_OUTPUT"]
    return {k: v.value for k, v in materialised.event_specific_data.metadata.items()}


@pytest.mark.parametrize("backend", ["file", "ducklake"])
def test_the_job_keeps_a_lake_and_leaves_a_file_alone(backend, tmp_path, monkeypatch):
    with warehouse_at(backend, tmp_path, monkeypatch) as location:
        with connect(location):
            pass  # made, with the schema (a lake: a clone of the empty one, its schema in a few snapshots)
        config = {"ops": {"maintain_lake_op": {"config": {"keep_days": 0, "grace_hours": 0}}}}
        result = maintain_job.execute_in_process(
            run_config=config, resources={"warehouse": WarehouseResource(db_path=str(location))}
        )
    assert result.success and result.dagster_run.job_name == MAINTAIN_JOB
    metadata = output_metadata(result)
    if backend == "file":
        assert metadata == {"skipped": "a DuckDB file needs no upkeep"}
    else:  # every snapshot but the current one expired
        assert metadata["snapshots_expired"] > 0 and metadata["files_after"] <= metadata["files_before"]
