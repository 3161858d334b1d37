"""deploy/dagster.yaml: a Dagster instance on the real PostgreSQL server, served by a real daemon and webserver.

One run of the FX job goes through the webserver (Dagster's Python GraphQL client) and the daemon's run
queue, schedules and the sensor get state, then both processes restart and the new ones must still see the
run, its materialisation, the schedule states and the sensor's ticks, all read back from PostgreSQL; and the
restarted daemon runs a second job from the same queue.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from dagster_graphql import DagsterGraphQLClient, DagsterGraphQLClientError

from pipelines.orchestration.schedules import DAILY_SCHEDULE, FX_JOB, FX_SCHEDULE, PUBLISH_SENSOR
from tests.support.dagster_services import DEPLOY, LOCATION, REPOSITORY, DagsterServices, wait_until
from tests.support.pgserver import HOST, PORT, USER, fresh_database, table_counts

FX_ASSET = ["sources", "fx_ecb"]
RUN_TIMEOUT_S = 600
DONE = {"SUCCESS", "FAILURE", "CANCELED"}

STATE_QUERY = """
query State($loc: String!, $repo: String!, $asset: [String!]!, $fx: String!, $prices: String!, $sensor: String!) {
  runsOrError { ... on Runs { results { runId jobName status } } }
  assetOrError(assetKey: {path: $asset}) { ... on Asset { assetMaterializations { runId timestamp } } }
  fx: scheduleOrError(scheduleSelector: {repositoryLocationName: $loc, repositoryName: $repo, scheduleName: $fx}) {
    ... on Schedule { id scheduleState { status } }
  }
  prices: scheduleOrError(
    scheduleSelector: {repositoryLocationName: $loc, repositoryName: $repo, scheduleName: $prices}
  ) { ... on Schedule { id scheduleState { status } } }
  sensorOrError(sensorSelector: {repositoryLocationName: $loc, repositoryName: $repo, sensorName: $sensor}) {
    ... on Sensor { sensorState { status ticks(limit: 1000) { id status } } }
  }
}
"""
STOP_SCHEDULE = """
mutation Stop($id: String!) { stopRunningSchedule(id: $id) {
  __typename ... on ScheduleStateResult { scheduleState { status } } ... on PythonError { message } } }
"""
START_SCHEDULE = """
mutation Start($loc: String!, $repo: String!, $name: String!) {
  startSchedule(scheduleSelector: {repositoryLocationName: $loc, repositoryName: $repo, scheduleName: $name}) {
    __typename ... on ScheduleStateResult { scheduleState { status } } ... on PythonError { message } } }
"""


@pytest.fixture
def pg_database():
    with fresh_database("ratecard_dagster") as name:
        yield name


def state(services: DagsterServices) -> dict[str, Any]:
    data = services.graphql(
        STATE_QUERY,
        loc=LOCATION,
        repo=REPOSITORY,
        asset=FX_ASSET,
        fx=FX_SCHEDULE,
        prices=DAILY_SCHEDULE,
        sensor=PUBLISH_SENSOR,
    )
    return {
        "runs": {(r["runId"], r["jobName"], r["status"]) for r in data["runsOrError"]["results"]},
        "materialisations": [(m["runId"], m["timestamp"]) for m in data["assetOrError"]["assetMaterializations"]],
        "schedules": {
            name: data[key]["scheduleState"]["status"]
            for key, name in (("fx", FX_SCHEDULE), ("prices", DAILY_SCHEDULE))
        },
        "schedule_ids": {FX_SCHEDULE: data["fx"]["id"], DAILY_SCHEDULE: data["prices"]["id"]},
        "sensor_ticks": {t["id"] for t in data["sensorOrError"]["sensorState"]["ticks"]},
    }


def run_status(client: DagsterGraphQLClient, run_id: str) -> str | None:
    try:
        status = client.get_run_status(run_id).value
    except DagsterGraphQLClientError:  # the webserver is busy: ask again
        return None
    return status if status in DONE else None


def launch_and_wait(services: DagsterServices) -> str:
    """Submits the FX job through the webserver (the daemon's queue launches it); its run id once it succeeded."""
    client = DagsterGraphQLClient("127.0.0.1", port_number=services.port)
    run_id = client.submit_job_execution(FX_JOB, repository_location_name=LOCATION, repository_name=REPOSITORY)
    status = wait_until(lambda: run_status(client, run_id), f"run {run_id} to finish", RUN_TIMEOUT_S, services.tail())
    assert status == "SUCCESS", services.tail()
    return run_id


def set_schedules(services: DagsterServices, ids: dict[str, str]) -> None:
    """FX schedule stopped (its code default is RUNNING); the price schedule stopped, then started again."""
    for name in (FX_SCHEDULE, DAILY_SCHEDULE):
        result = services.graphql(STOP_SCHEDULE, id=ids[name])["stopRunningSchedule"]
        assert result["__typename"] == "ScheduleStateResult", result
    result = services.graphql(START_SCHEDULE, loc=LOCATION, repo=REPOSITORY, name=DAILY_SCHEDULE)["startSchedule"]
    assert result["__typename"] == "ScheduleStateResult", result


def test_instance_on_postgres_survives_restart(tmp_path, sources_file, pg_database):
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(DEPLOY / "dagster.yaml", home / "dagster.yaml")
    env = {
        "DAGSTER_PG_USERNAME": USER,
        "DAGSTER_PG_PASSWORD": "",
        "DAGSTER_PG_HOST": HOST,
        "DAGSTER_PG_PORT": str(PORT),
        "DAGSTER_PG_DB": pg_database,
        "RATECARD_SOURCES": str(sources_file),
        "RATECARD_DB": str(tmp_path / "warehouse" / "prices.duckdb"),
    }
    with DagsterServices(home, env, tmp_path / "logs") as services:
        # Schedule states are set before the daemon starts: each scheduler iteration writes back the state it
        # read at its start, so a toggle that lands inside an iteration is lost (Dagster's own read-then-write).
        services.start(daemon=False)
        set_schedules(services, state(services)["schedule_ids"])
        services.start_daemon()
        run_id = launch_and_wait(services)
        # The daemon evaluates the running sensor soon after it starts; its ticks are schedule storage too.
        before = wait_until(
            lambda: (s := state(services))["sensor_ticks"] and s, "a sensor tick", on_timeout=services.tail()
        )
        services.restart()
        after = state(services)
        # The restarted daemon works the same queue: a second run goes through and joins the first.
        second = launch_and_wait(services)
        final = state(services)

    assert (run_id, FX_JOB, "SUCCESS") in after["runs"]
    assert after["runs"] == before["runs"]
    assert [m[0] for m in after["materialisations"]] == [run_id]
    assert after["materialisations"] == before["materialisations"]
    assert before["schedules"] == {FX_SCHEDULE: "STOPPED", DAILY_SCHEDULE: "RUNNING"}
    assert after["schedules"] == before["schedules"]
    assert before["sensor_ticks"] <= after["sensor_ticks"]
    assert final["runs"] == after["runs"] | {(second, FX_JOB, "SUCCESS")}
    # The second run found the same ECB rates: the source was unchanged, so it is observed, not materialised again.
    assert [m[0] for m in final["materialisations"]] == [run_id]
    # Read straight from the database: it is PostgreSQL that holds them, not a SQLite file under DAGSTER_HOME.
    counts = table_counts(pg_database, ["runs", "event_logs", "instigators", "job_ticks"])
    assert counts["runs"] == 2
    assert counts["event_logs"] > 0
    assert counts["instigators"] >= 2  # the two schedules whose state was set
    assert counts["job_ticks"] >= len(after["sensor_ticks"])
    assert not list(home.rglob("*.db")), list(home.rglob("*.db"))


def test_missing_server_fails_with_how_to_start_it(monkeypatch):
    import tests.support.pgserver as pgserver
    from tests.support.dagster_services import free_port

    monkeypatch.setattr(pgserver, "PORT", free_port())  # nothing listens there
    with pytest.raises(
        pytest.fail.Exception,
        match=r"(?s)not reachable at 127\.0\.0\.1:\d+.*Start the machine.s server with: +pg_ctlcluster",
    ):
        pgserver.connect()
