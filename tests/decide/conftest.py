"""The warehouse the decision tests share: the samples the example workloads need, the Neuron gate's sources, and
the vendor's benchmarks, and the example pilots, traffic profiles, training runs and migration plans, landed once per
test process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import PILOT_SAMPLES
from tests.support.pilot_runs import SOURCES, plan, ratecard

GATE_SOURCES = ["neuron_manifest", "neuron_torch_status", "neuron_jax_status", "neuron_vllm_status",
                "neuron_release_status", "neuron_announce_pytorch_xla_training",
                "neuron_announce_pytorch_xla_inference", "neuron_announce_nxd_inference",
                "neuron_announce_tensorflow_inf2", "neuron_announce_tensorflow_1x_maintenance",
                "neuron_announce_nxdt_eos", "neuron_sdk_policy"]  # fmt: skip
BENCHMARK_SOURCES = ["neuron_inf2_latency_benchmarks", "neuron_inf2_throughput_benchmarks",
                     "neuron_trn1_latency_benchmarks", "neuron_trn1_throughput_benchmarks",
                     "neuron_trn1_training_decoder_benchmarks"]  # fmt: skip


@pytest.fixture(scope="session")
def decided(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("decide") / "prices.duckdb"
    sources = [arg for sid in [*SOURCES, *GATE_SOURCES, *BENCHMARK_SOURCES] for arg in ("--source", sid)]
    steps = [
        ["refresh", "--offline", *sources],
        ["pilot", "import", PILOT_SAMPLES / "example.csv"],
        ["pilot", "traffic", "--csv", PILOT_SAMPLES / "traffic_example.csv"],
        ["pilot", "training", PILOT_SAMPLES / "training_example.csv"],
    ]
    for step in steps:
        done = ratecard(*step, "--db", db)
        assert done.returncode == 0, done.stdout + done.stderr
    plan(db, "chat-8b", "40000", "500", "2000000000", "12")
    plan(db, "summarise-batch", "60000", "1000", "50000000000", "24")
    return db
