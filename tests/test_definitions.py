"""Snapshot of what Dagster sees: asset keys, checks, jobs, schedules, pools and retry policy."""

from __future__ import annotations

import dagster as dg

from assets.sources import WRITER_POOL
from pipelines.definitions import defs

SOURCE_IDS = ["aws_capacity_blocks", "aws_inf1", "aws_inf2", "aws_trn1", "aws_trn2", "aws_trn3"]


def test_asset_keys():
    keys = sorted(k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys())
    assert keys == ["aws_instance_prices"] + [f"sources/{s}" for s in SOURCE_IDS]


def test_asset_checks():
    checks = sorted(f"{k.asset_key.to_user_string()}:{k.name}"
                    for k in defs.resolve_asset_graph().asset_check_keys)
    expected = ["aws_instance_prices:capacity_block_rate_matches_printed", "aws_instance_prices:every_price_has_spec"]
    expected += [f"sources/{s}:{c}" for s in SOURCE_IDS for c in ("ge_instance_prices", "ge_instance_specs")]
    assert checks == sorted(expected)


def test_jobs_and_schedule():
    schedule = defs.resolve_schedule_def("daily_price_refresh")
    assert (schedule.job_name, schedule.cron_schedule, schedule.execution_timezone) == (
        "refresh_prices", "0 6 * * *", "UTC")
    assert schedule.default_status == dg.DefaultScheduleStatus.RUNNING
    assert defs.resolve_job_def("refresh_prices") is not None


def test_duckdb_writers_share_one_pool_and_fetching_retries():
    graph = defs.resolve_asset_graph()
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        assert node.pools == {WRITER_POOL}, key
    source = defs.resolve_assets_def(dg.AssetKey(["sources", "aws_trn1"]))
    assert source.op.retry_policy.max_retries == 2


def test_views_depend_on_every_source():
    graph = defs.resolve_asset_graph()
    parents = graph.get(dg.AssetKey("aws_instance_prices")).parent_keys
    assert sorted(k.to_user_string() for k in parents) == [f"sources/{s}" for s in SOURCE_IDS]


def test_view_checks_queue_with_the_writers():
    for check in defs.asset_checks:
        assert check.op.pool == WRITER_POOL, check


def test_refresh_job_runs_in_one_process():
    # Every step queues for the single DuckDB writer; one process saves a library import per source.
    assert defs.resolve_job_def("refresh_prices").executor_def.name == "in_process"
