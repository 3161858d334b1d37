"""The daily price refresh fanned out: a step per source in processes of their own, two at a time, on a Dagster
instance whose storage is PostgreSQL (deploy/dagster.yaml), landing into a lake. Every source lands once; a source
that fails fails its own step alone, named, while the others land; never two steps on one host at once."""

from __future__ import annotations

import itertools
import shutil

import dagster as dg

from pipelines.definitions import SOURCES_ENV, WORKERS_ENV
from pipelines.fetch.offline import pointed_at
from pipelines.sources.file import Concurrency
from pipelines.sources.toml_writer import sources_toml
from tests.support.backends import warehouse_at
from tests.support.fanned_job import refresh_job
from tests.support.localserver import Reply
from tests.support.pgserver import HOST, PORT, USER, fresh_database
from warehouse.db import connect
from warehouse.target import WAREHOUSE_ENV

STEP_START, STEP_SUCCESS, STEP_FAILURE = (
    dg.DagsterEventType.STEP_START,
    dg.DagsterEventType.STEP_SUCCESS,
    dg.DagsterEventType.STEP_FAILURE,
)
DEPLOY = dg.file_relative_path(__file__, "../../deploy/dagster.yaml")
IDS = ("aws_trn1", "aws_inf2", "gpu_hyperstack", "gpu_coreweave")
FAILING = "gpu_coreweave"
REFERENCES = ("launch_dates", "nvidia_gpus")  # the in-repo reference files: assets of the job too


def step_spans(instance: dg.DagsterInstance, run_id: str) -> dict[str, tuple[float, float]]:
    """Each step's (start, end) time, from the run's event log."""
    starts, ends = {}, {}
    for entry in instance.all_logs(run_id, of_type={STEP_START, STEP_SUCCESS, STEP_FAILURE}):
        event = entry.dagster_event
        assert event is not None
        (starts if event.event_type == STEP_START else ends)[event.step_key] = entry.timestamp
    return {key: (starts[key], ends[key]) for key in starts if key in ends}


def overlapping(spans) -> bool:  # type: ignore[no-untyped-def]
    ordered = sorted(spans)
    return any(later[0] < earlier[1] for earlier, later in itertools.pairwise(ordered))


def test_two_workers_land_every_source_once_into_a_lake_and_a_failing_source_fails_alone(
    sources, site, tmp_path, monkeypatch
):
    chosen = [s for s in sources if s.id in IDS]
    # The same server under two host names, one step at a time on each (per_host = 1): two hosts, two at once.
    on_localhost = site.base_url.replace("127.0.0.1", "localhost")
    pointed = pointed_at([s for s in chosen if s.kind == "aws"], site.base_url)
    pointed += pointed_at([s for s in chosen if s.kind != "aws"], on_localhost)
    sources_file = tmp_path / "sources.toml"
    sources_file.write_text(sources_toml(pointed, Concurrency(per_host=1)))
    failing = next(s for s in chosen if s.id == FAILING)
    site.set(f"/{failing.sample}", Reply(status=404, body=b"gone", content_type="text/plain"))
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(DEPLOY, home / "dagster.yaml")
    with warehouse_at("ducklake", tmp_path, monkeypatch) as lake, fresh_database("ratecard_fanned") as dagster_db:
        for name, value in {
            "DAGSTER_HOME": str(home),
            "DAGSTER_PG_USERNAME": USER,
            "DAGSTER_PG_PASSWORD": "",
            "DAGSTER_PG_HOST": HOST,
            "DAGSTER_PG_PORT": str(PORT),
            "DAGSTER_PG_DB": dagster_db,
            SOURCES_ENV: str(sources_file),
            WAREHOUSE_ENV: str(lake),
            WORKERS_ENV: "2",
        }.items():
            monkeypatch.setenv(name, value)
        with dg.DagsterInstance.get() as instance:
            assert type(instance.run_storage).__name__ == "PostgresRunStorage"
            result = dg.execute_job(dg.reconstructable(refresh_job), instance=instance, raise_on_error=False)
            materialised = [
                e.asset_key.path[-1] for e in result.all_events if e.event_type_value == "ASSET_MATERIALIZATION"
            ]
            failed = [e.step_key for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
            failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
            spans = step_spans(instance, result.run_id)
        with connect(lake, read_only=True) as con:
            logged = con.execute("SELECT source_id, list(outcome) FROM fetch_log GROUP BY ALL").fetchall()
    assert not result.success  # one source failed
    assert failed == [f"source_{FAILING}"]  # its own step, named, alone
    assert "HTTP 404" in failure.event_specific_data.error.message
    landed = (set(IDS) - {FAILING}) | set(REFERENCES)
    assert sorted(materialised) == sorted(landed)  # each of the others once
    assert dict(logged) == {key: ["landed"] for key in landed} | {FAILING: ["fetch_failed"]}
    # Two steps ran at once, never two on one host: some step started before another had ended, and each host's
    # steps ran one after another.
    hosts = {f"source_{s.id}": s.host for s in pointed}
    sources_spans = {key: span for key, span in spans.items() if key in hosts}
    assert overlapping(sources_spans.values()), spans
    for host in set(hosts.values()):
        assert not overlapping([span for key, span in sources_spans.items() if hosts[key] == host]), (host, spans)


def test_fanned_out_definitions_give_each_source_a_step_tagged_with_its_host(sources_file):
    from pipelines.definitions import build_definitions

    defs = build_definitions(sources_file, workers=3)
    job = defs.resolve_job_def("refresh_prices")
    steps = {node.name: node for node in job.graph.node_defs}
    assert job.executor_def.name == "multiprocess"
    assert {"source_aws_trn1", "source_gpu_lambda", "source_gpu_azure"} <= set(steps)
    assert all(
        node.tags.get("ratecard/host") == "127.0.0.1" for name, node in steps.items() if name.startswith("source_")
    )
    schedule = defs.resolve_schedule_def("daily_price_refresh")
    assert schedule.job_name == "refresh_prices"
    # the default stays one process, a step per group
    assert build_definitions(sources_file).resolve_job_def("refresh_prices").executor_def.name == "in_process"
