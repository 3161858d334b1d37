"""Snapshot of what Dagster sees: asset keys, checks, jobs, schedules, pools and retry policy."""

from __future__ import annotations

import dagster as dg

from assets.sources import WRITER_POOL
from pipelines.definitions import defs

SOURCE_IDS = ["aws_capacity_blocks", "aws_inf1", "aws_inf2", "aws_trn1", "aws_trn2"]
# Each region index is one asset (its regions land inside it); the spot feed is a source of the spot step.
PRICELIST_IDS = ["aws_pricelist", "aws_sagemaker", "aws_savings_plans", "aws_spot"]
GPU_SOURCE_IDS = [
    "gpu_azure",
    "gpu_beam",
    "gpu_coreweave",
    "gpu_crusoe",
    "gpu_gcp",
    "gpu_gcp_tpu",
    "gpu_hyperstack",
    "gpu_lambda",
    "gpu_leadergpu",
    "gpu_nebius",
    "gpu_oci",
    "gpu_quantacloud",
    "gpu_replicate",
    "gpu_runpod",
    "gpu_runpod_serverless",
    "gpu_vastai",
]
SPEC_SOURCE_IDS = [
    "aws_trn1_claims",
    "aws_trn2_claims",
    "aws_trn3",
    "neuron_inf1_arch",
    "neuron_inf2_arch",
    "neuron_inferentia",
    "neuron_inferentia2",
    "neuron_sdk_release",
    "neuron_trainium",
    "neuron_trainium2",
    "neuron_trainium3",
    "neuron_trn1_arch",
    "neuron_trn2_arch",
    "neuron_trn3_arch",
    "tpu_v5e",
    "tpu_v5p",
    "tpu_v6e",
]
GATE_SOURCE_IDS = [
    "neuron_announce_mxnet",
    "neuron_announce_nxd_inference",
    "neuron_announce_nxd_training",
    "neuron_announce_nxdt_eos",
    "neuron_announce_pytorch_xla_inference",
    "neuron_announce_pytorch_xla_training",
    "neuron_announce_tensorflow_1x_eos",
    "neuron_announce_tensorflow_1x_last",
    "neuron_announce_tensorflow_1x_maintenance",
    "neuron_announce_tensorflow_inf2",
    "neuron_announce_torch_neuron_versions_eos",
    "neuron_announce_torch_neuron_versions_maintenance",
    "neuron_announce_transformers_neuronx",
    "neuron_announce_vllm_v0",
    "neuron_jax_status",
    "neuron_manifest",
    "neuron_release_status",
    "neuron_sdk_policy",
    "neuron_torch_status",
    "neuron_vllm_status",
]
BENCHMARK_SOURCE_IDS = [  # vendor claims, never used
    "neuron_inf1_benchmarks",
    "neuron_inf1_cnn_throughput_benchmarks",
    "neuron_inf1_encoder_latency_benchmarks",
    "neuron_inf1_encoder_throughput_benchmarks",
    "neuron_inf2_encoder_decoder_latency_benchmarks",
    "neuron_inf2_encoder_decoder_throughput_benchmarks",
    "neuron_inf2_encoder_latency_benchmarks",
    "neuron_inf2_encoder_throughput_benchmarks",
    "neuron_inf2_latency_benchmarks",
    "neuron_inf2_throughput_benchmarks",
    "neuron_inf2_vision_cnn_latency_benchmarks",
    "neuron_inf2_vision_cnn_throughput_benchmarks",
    "neuron_inf2_vision_dit_latency_benchmarks",
    "neuron_inf2_vision_dit_throughput_benchmarks",
    "neuron_inf2_vision_latency_benchmarks",
    "neuron_inf2_vision_sd_latency_benchmarks",
    "neuron_inf2_vision_sd_throughput_benchmarks",
    "neuron_inf2_vision_throughput_benchmarks",
    "neuron_inf2_vision_transformers_latency_benchmarks",
    "neuron_inf2_vision_transformers_throughput_benchmarks",
    "neuron_trn1_encoder_decoder_latency_benchmarks",
    "neuron_trn1_encoder_decoder_throughput_benchmarks",
    "neuron_trn1_encoder_latency_benchmarks",
    "neuron_trn1_encoder_throughput_benchmarks",
    "neuron_trn1_latency_benchmarks",
    "neuron_trn1_throughput_benchmarks",
    "neuron_trn1_training_decoder_benchmarks",
    "neuron_trn1_training_encoder_benchmarks",
    "neuron_trn1_training_nlp_benchmarks",
    "neuron_trn1_training_vision_benchmarks",
]
REFERENCE_IDS = ["launch_dates", "nvidia_gpus"]  # in-repo files, landed like any source
VIEW_KEYS = [
    "accelerator_hour_prices",
    "aws_instance_prices",
    "dashboard_site",
    "gpu_cheapest",
    "published_snapshot",
]
AFTER_PUBLISH_KEYS = ["change_notifications", "warehouse_exports"]
DECISION_KEYS = ["workload_decision"]  # one partition per workload, run by its sensor after each publish


def test_asset_keys():
    keys = sorted(k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys())
    ids = SOURCE_IDS + GPU_SOURCE_IDS + SPEC_SOURCE_IDS + GATE_SOURCE_IDS + BENCHMARK_SOURCE_IDS + PRICELIST_IDS
    ids += REFERENCE_IDS
    sources = [f"sources/{s}" for s in [*ids, "fx_ecb"]]
    assert keys == sorted(VIEW_KEYS + AFTER_PUBLISH_KEYS + DECISION_KEYS + sources)


def test_asset_checks():
    checks = sorted(f"{k.asset_key.to_user_string()}:{k.name}" for k in defs.resolve_asset_graph().asset_check_keys)
    expected = [
        "aws_instance_prices:capacity_block_rate_matches_printed",
        "aws_instance_prices:every_price_has_spec",
        "aws_instance_prices:page_price_matches_a_region",
        "gpu_cheapest:gpu_fx_rates_fresh",
        "gpu_cheapest:gpu_names_recognised",
        "sources/fx_ecb:ge_fx_rates",
    ]
    expected += [f"sources/{s}:{c}" for s in SOURCE_IDS for c in ("ge_instance_prices", "ge_instance_specs")]
    expected += [f"sources/{s}:ge_gpu_listings" for s in GPU_SOURCE_IDS]
    expected += [f"sources/{s}:ge_accelerator_specs" for s in SPEC_SOURCE_IDS]
    expected += [f"sources/{s}:ge_neuron_gate" for s in GATE_SOURCE_IDS]
    expected += [f"sources/{s}:ge_vendor_benchmarks" for s in BENCHMARK_SOURCE_IDS]
    expected += [f"sources/{s}:ge_pricelist_prices" for s in PRICELIST_IDS]
    assert checks == sorted(expected)


def test_gpu_sources_wait_for_fx_and_feed_the_gpu_views():
    graph = defs.resolve_asset_graph()
    for source_id in GPU_SOURCE_IDS:
        assert graph.get(dg.AssetKey(["sources", source_id])).parent_keys == {dg.AssetKey(["sources", "fx_ecb"])}
    gpu_parents = graph.get(dg.AssetKey("gpu_cheapest")).parent_keys
    assert sorted(k.to_user_string() for k in gpu_parents) == [f"sources/{s}" for s in GPU_SOURCE_IDS]
    assert graph.get(dg.AssetKey("accelerator_hour_prices")).parent_keys == {
        dg.AssetKey("aws_instance_prices"),
        dg.AssetKey("gpu_cheapest"),
    }


def test_jobs_and_schedules():
    names = ("daily_fx_refresh", "daily_price_refresh", "daily_lake_maintenance")
    schedules = {name: defs.resolve_schedule_def(name) for name in names}
    assert {(s.name, s.job_name, s.cron_schedule, s.execution_timezone) for s in schedules.values()} == {
        ("daily_fx_refresh", "refresh_fx", "45 5 * * *", "UTC"),
        ("daily_price_refresh", "refresh_prices", "0 6 * * *", "UTC"),
        ("daily_lake_maintenance", "maintain_lake", "30 7 * * *", "UTC"),
    }
    assert all(s.default_status == dg.DefaultScheduleStatus.RUNNING for s in schedules.values())


def test_fx_runs_apart_so_a_bad_fx_day_cannot_skip_the_gpu_sources():
    prices = defs.resolve_job_def("refresh_prices").asset_layer.selected_asset_keys
    fx = defs.resolve_job_def("refresh_fx").asset_layer.selected_asset_keys
    assert fx == {dg.AssetKey(["sources", "fx_ecb"])}
    # 5 AWS + the GPU sources + 17 spec (aws_trn3 is a spec page, and three TPU pages) + 10 of the Neuron gate + 10
    # benchmark tables + the price list, the Savings Plans, SageMaker and the spot feed + 2 references
    expected = len(SOURCE_IDS + GPU_SOURCE_IDS + SPEC_SOURCE_IDS + GATE_SOURCE_IDS + BENCHMARK_SOURCE_IDS)
    expected += len(PRICELIST_IDS + REFERENCE_IDS)
    assert dg.AssetKey(["sources", "fx_ecb"]) not in prices and len(prices) == expected == 78 + len(GPU_SOURCE_IDS)
    publish = defs.resolve_job_def("publish_views").asset_layer.selected_asset_keys
    assert {k.to_user_string() for k in publish} == set(VIEW_KEYS + AFTER_PUBLISH_KEYS)


def test_a_finished_price_refresh_triggers_one_publish():
    sensor = defs.resolve_sensor_def("publish_after_refresh")
    assert sensor.job_name == "publish_views"
    assert sensor.default_status == dg.DefaultSensorStatus.RUNNING
    for name in ("refresh_prices", "refresh_fx", "publish_views", "backfill_pricelist", "maintain_lake"):
        assert defs.resolve_job_def(name).tags.get("ratecard/warehouse") == "write"


def test_each_workload_is_decided_after_each_publish():
    graph = defs.resolve_asset_graph()
    assert graph.get(dg.AssetKey("workload_decision")).parent_keys == {dg.AssetKey("published_snapshot")}
    job = defs.resolve_job_def("decide_workloads")
    assert job.asset_layer.selected_asset_keys == {dg.AssetKey("workload_decision")}
    assert isinstance(job.partitions_def, dg.DynamicPartitionsDefinition) and job.partitions_def.name == "workload"
    sensor = defs.resolve_sensor_def("decide_after_publish")
    assert sensor.job_name == "decide_workloads" and sensor.default_status == dg.DefaultSensorStatus.RUNNING


def test_sources_hold_no_writer_pool_while_fetching_and_the_views_share_one():
    """A source step fetches outside any lock (it takes the refresh lock only to land), so it holds no pool;
    every other asset writes or reads the file and queues in the one writers' pool."""
    graph = defs.resolve_asset_graph()
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        expected = set() if key.path[0] == "sources" else {WRITER_POOL}
        assert node.pools == expected, key
    source = defs.resolve_assets_def(dg.AssetKey(["sources", "aws_trn1"]))
    assert source.op.retry_policy.max_retries == 2


def test_the_dashboard_is_rebuilt_after_each_publish():
    graph = defs.resolve_asset_graph()
    assert graph.get(dg.AssetKey("dashboard_site")).parent_keys == {dg.AssetKey("published_snapshot")}


def test_sources_refresh_in_one_subsettable_step_per_group():
    """FX in one step, AWS + GPU prices in another: each step fetches its sources at once; every source keeps
    its own asset, which a failed or unchanged source leaves unmaterialised."""
    fx = defs.resolve_assets_def(dg.AssetKey(["sources", "fx_ecb"]))
    prices = defs.resolve_assets_def(dg.AssetKey(["sources", "aws_trn1"]))
    assert (fx.op.name, prices.op.name) == ("fx_sources", "price_sources")
    in_step = set(SOURCE_IDS + GPU_SOURCE_IDS + SPEC_SOURCE_IDS + GATE_SOURCE_IDS + BENCHMARK_SOURCE_IDS)
    assert {k.path[-1] for k in prices.keys} == in_step
    assert fx.can_subset and prices.can_subset
    assert not any(out.is_required for out in [*fx.op.outs.values(), *prices.op.outs.values()])
    assert {k.asset_key.path[-1] for k in prices.check_keys} == in_step
    # The price list's region index is an asset of its own: its regions land one by one inside it.
    assert defs.resolve_assets_def(dg.AssetKey(["sources", "aws_pricelist"])).op.name == "sources__aws_pricelist"


def test_the_spot_feed_refreshes_after_the_price_list_whose_type_attributes_it_uses():
    spot = defs.resolve_assets_def(dg.AssetKey(["sources", "aws_spot"]))
    assert spot.op.name == "spot_sources"
    parents = defs.resolve_asset_graph().get(dg.AssetKey(["sources", "aws_spot"])).parent_keys
    assert parents == {dg.AssetKey(["sources", "aws_pricelist"])}


def test_the_savings_plans_land_after_the_price_list_whose_types_price_them():
    plans = defs.resolve_assets_def(dg.AssetKey(["sources", "aws_savings_plans"]))
    assert plans.op.name == "sources__aws_savings_plans"
    parents = defs.resolve_asset_graph().get(dg.AssetKey(["sources", "aws_savings_plans"])).parent_keys
    assert parents == {dg.AssetKey(["sources", "aws_pricelist"])}


def test_sagemaker_lands_after_the_price_list_whose_types_give_its_accelerator_counts():
    sagemaker = defs.resolve_assets_def(dg.AssetKey(["sources", "aws_sagemaker"]))
    assert sagemaker.op.name == "sources__aws_sagemaker"
    parents = defs.resolve_asset_graph().get(dg.AssetKey(["sources", "aws_sagemaker"])).parent_keys
    assert parents == {dg.AssetKey(["sources", "aws_pricelist"])}


def test_views_depend_on_every_source():
    graph = defs.resolve_asset_graph()
    parents = graph.get(dg.AssetKey("aws_instance_prices")).parent_keys
    assert sorted(k.to_user_string() for k in parents) == [f"sources/{s}" for s in SOURCE_IDS]


def test_view_checks_queue_with_the_writers():
    for check in defs.asset_checks:
        assert check.op.pool == WRITER_POOL, check


def test_jobs_run_in_one_process():
    # Every step queues for the single DuckDB writer; one process saves a library import per source.
    for name in ("refresh_prices", "refresh_fx", "publish_views", "backfill_pricelist", "maintain_lake"):
        assert defs.resolve_job_def(name).executor_def.name == "in_process"
