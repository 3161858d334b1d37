"""Every Dagster config the project ships goes through Dagster's own validation, and builds a working instance.

Instance files (dagster.yaml, deploy/dagster*.yaml): `InstanceRef.from_dir` validates them against Dagster's
instance schema, then `DagsterInstance.from_ref` builds each configured class from its config (storage
connects to a fresh database on the real PostgreSQL server; DockerRunLauncher checks its config without a
Docker daemon). Workspace files (deploy/workspace*.yaml): Dagster's workspace schema.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from dagster import DagsterInstance
from dagster._core.errors import DagsterInvalidConfigError
from dagster._core.instance.ref import InstanceRef
from dagster._core.workspace.config_schema import ensure_workspace_config

from tests.support.dagster_services import DEPLOY, LOCATION, ROOT
from tests.support.pgserver import HOST, PORT, USER, fresh_database

DEV_CONFIG = ROOT / "dagster.yaml"
INSTANCE_CONFIGS = sorted(DEPLOY.glob("dagster*.yaml"))
WORKSPACE_CONFIGS = sorted(DEPLOY.glob("workspace*.yaml"))
SHIPPED = {p.name for p in DEPLOY.iterdir()}


@pytest.fixture(scope="module")
def pg_database():
    with fresh_database("ratecard_deploy_configs") as name:
        yield name


@pytest.fixture
def pg_env(monkeypatch, pg_database):
    for key, value in {"USERNAME": USER, "PASSWORD": "", "HOST": HOST, "PORT": str(PORT), "DB": pg_database}.items():
        monkeypatch.setenv(f"DAGSTER_PG_{key}", value)


def instance_from(config: Path, home: Path) -> DagsterInstance:
    ref = InstanceRef.from_dir(str(home), config_dir=str(config.parent), config_filename=config.name)
    return DagsterInstance.from_ref(ref)


def concurrency(config: Path) -> object:
    return yaml.safe_load(config.read_text())["concurrency"]


def test_every_shipped_file_is_checked_here():
    checked = {p.name for p in INSTANCE_CONFIGS + WORKSPACE_CONFIGS}
    assert checked == SHIPPED, f"deploy/ files no test validates: {sorted(SHIPPED - checked)}"
    assert {"dagster.yaml", "dagster.docker.yaml", "workspace.yaml", "workspace.docker.yaml"} <= checked


@pytest.mark.parametrize("config", INSTANCE_CONFIGS, ids=lambda p: p.name)
def test_deploy_instance_config_is_valid_and_on_postgres(config, tmp_path, pg_env):
    from dagster_postgres import PostgresEventLogStorage, PostgresRunStorage, PostgresScheduleStorage

    instance = instance_from(config, tmp_path)
    try:
        assert isinstance(instance.run_storage, PostgresRunStorage)
        assert isinstance(instance.event_log_storage, PostgresEventLogStorage)
        assert isinstance(instance.schedule_storage, PostgresScheduleStorage)
        queue = instance.get_concurrency_config().run_queue_config
        assert queue is not None
        assert queue.max_concurrent_runs == 4
        assert [dict(limit) for limit in queue.tag_concurrency_limits] == [{"key": "ratecard/warehouse", "limit": 1}]
        assert instance.run_launcher is not None  # built from its config: a wrong key or value raises here
    finally:
        instance.dispose()
    # The run queue, tag limits and pools are those of `make dev`'s instance, so they cannot drift apart.
    assert concurrency(config) == concurrency(DEV_CONFIG)


def test_docker_instance_launches_runs_in_containers(tmp_path, pg_env):
    from dagster_docker import DockerRunLauncher

    instance = instance_from(DEPLOY / "dagster.docker.yaml", tmp_path)
    try:
        launcher = instance.run_launcher
        assert isinstance(launcher, DockerRunLauncher)
        # Every run container gets the instance's credentials, or it could not record its own events.
        assert {f"DAGSTER_PG_{k}" for k in ("USERNAME", "PASSWORD", "HOST", "PORT", "DB")} <= set(launcher.env_vars)
    finally:
        instance.dispose()


def test_make_dev_instance_stays_on_sqlite(tmp_path):
    from dagster._core.storage.runs import SqliteRunStorage

    instance = instance_from(DEV_CONFIG, tmp_path)
    try:
        assert isinstance(instance.run_storage, SqliteRunStorage)
        assert Path(tmp_path, "history", "runs.db").exists()
    finally:
        instance.dispose()


@pytest.mark.parametrize("config", WORKSPACE_CONFIGS, ids=lambda p: p.name)
def test_workspace_config_is_valid(config):
    validated = ensure_workspace_config(yaml.safe_load(config.read_text()), str(config))
    (target,) = validated["load_from"]
    (entry,) = target.values()
    assert entry["location_name"] == LOCATION


def test_validation_rejects_a_misspelt_launcher_key(tmp_path, pg_env):
    bad = tmp_path / "conf" / "dagster.yaml"
    bad.parent.mkdir()
    bad.write_text(
        (DEPLOY / "dagster.docker.yaml").read_text().replace("    network: ratecard", "    netwrok: ratecard")
    )
    instance = instance_from(bad, tmp_path)
    try:
        with pytest.raises(DagsterInvalidConfigError, match="netwrok"):
            _ = instance.run_launcher
    finally:
        instance.dispose()


def test_validation_names_a_missing_credential_variable(tmp_path, pg_env, monkeypatch):
    monkeypatch.delenv("DAGSTER_PG_DB")
    with pytest.raises(DagsterInvalidConfigError, match="DAGSTER_PG_DB"):
        instance_from(DEPLOY / "dagster.yaml", tmp_path)


def test_validation_rejects_a_workspace_with_an_unknown_target():
    with pytest.raises(DagsterInvalidConfigError, match="python_modul"):
        ensure_workspace_config({"load_from": [{"python_modul": "pipelines.definitions"}]}, "workspace.yaml")
