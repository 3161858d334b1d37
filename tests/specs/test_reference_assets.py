"""The in-repo reference files as Dagster assets: materialised onto a temporary DuckDB file, they land with
their repo path and hash as provenance, and a second run finds them unchanged (no new version)."""

from __future__ import annotations

import hashlib

import dagster as dg
import duckdb

from assets.references import REFERENCE_ASSETS
from pipelines.orchestration.resources import WarehouseResource
from pipelines.refresh.references import REFERENCE_FILES, REPO_ROOT


def materialise(db_path) -> dg.ExecuteInProcessResult:
    return dg.materialize(REFERENCE_ASSETS, resources={"warehouse": WarehouseResource(db_path=str(db_path))})


def outcomes(result: dg.ExecuteInProcessResult) -> dict[str, str]:
    return {
        e.asset_key.path[-1]: e.materialization.metadata["outcome"].value
        for e in result.get_asset_materialization_events()
    }


def test_reference_files_land_from_dagster_and_stay_unchanged_on_a_second_run(tmp_path):
    db_path = tmp_path / "prices.duckdb"
    assert outcomes(materialise(db_path)) == dict.fromkeys(REFERENCE_FILES, "landed")
    assert outcomes(materialise(db_path)) == dict.fromkeys(REFERENCE_FILES, "unchanged")
    with duckdb.connect(str(db_path), read_only=True) as con:
        logged = dict(con.execute("SELECT url, sha256 FROM fetch_log WHERE outcome = 'landed'").fetchall())
        launches = con.execute(
            "SELECT count(*), count(*) FILTER (WHERE valid_to IS NULL) FROM accelerator_launch_history"
        )
        assert launches.fetchone() == (7, 7)  # one version per launch, not one per run
    for _, path in REFERENCE_FILES.values():
        assert logged[f"repo:{path}"] == hashlib.sha256((REPO_ROOT / path).read_bytes()).hexdigest()
