"""AWS Neuron's real benchmark tables (tests/recorded/neuron_benchmarks/, provenance in SOURCES.md) through the real
refresh: each served on 127.0.0.1 at its raw-GitHub path as text/plain, landed as vendor claims, figures exact."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines.adapters.neuron_benchmarks import parse
from pipelines.refresh.one_source import SourceOutcome
from pipelines.sources.file import SourceSpec
from tests.support.paths import RECORDED
from tests.support.raw_github import land_raw_files

READER = SourceSpec(
    id="neuron_benchmark_recording",
    adapter="neuron_benchmarks",
    url="https://raw.githubusercontent.com/aws-neuron/aws-neuron-sdk/master/about-neuron/benchmarks/x.csv",
    sample="neuron/benchmarks/inf2/latency_data_decoder.csv",
)

LANDINGS = {
    "neuron_inf2_latency_benchmarks": "inf2-latency_data_decoder.csv",
    "neuron_inf2_throughput_benchmarks": "inf2-throughput_data_decoder.csv",
    "neuron_trn1_latency_benchmarks": "trn1-latency_data_decoder.csv",
    "neuron_trn1_throughput_benchmarks": "trn1-throughput_data_decoder.csv",
    "neuron_inf2_encoder_latency_benchmarks": "inf2-latency_data_encoder.csv",
    "neuron_inf2_encoder_throughput_benchmarks": "inf2-throughput_data_encoder.csv",
    "neuron_trn1_encoder_latency_benchmarks": "trn1-latency_data_encoder.csv",
    "neuron_trn1_encoder_throughput_benchmarks": "trn1-throughput_data_encoder.csv",
    "neuron_trn1_training_decoder_benchmarks": "trn1-training_data_decoder.csv",
    "neuron_trn1_training_encoder_benchmarks": "trn1-training_data_encoder.csv",
    "neuron_inf2_encoder_decoder_latency_benchmarks": "inf2-latency_data_encoder_decoder.csv",
    "neuron_inf2_encoder_decoder_throughput_benchmarks": "inf2-throughput_data_encoder_decoder.csv",
    "neuron_trn1_encoder_decoder_latency_benchmarks": "trn1-latency_data_encoder_decoder.csv",
    "neuron_trn1_encoder_decoder_throughput_benchmarks": "trn1-throughput_data_encoder_decoder.csv",
    "neuron_trn1_training_nlp_benchmarks": "trn1-trn1_trn1n_nlp_data.csv",
    "neuron_trn1_training_vision_benchmarks": "trn1-training_data_vision_transformers.csv",
    "neuron_inf2_vision_latency_benchmarks": "inf2-latency_data_vision.csv",
    "neuron_inf2_vision_throughput_benchmarks": "inf2-throughput_data_vision.csv",
    "neuron_inf2_vision_cnn_latency_benchmarks": "inf2-latency_data_vision_cnn.csv",
    "neuron_inf2_vision_cnn_throughput_benchmarks": "inf2-throughput_data_vision_cnn.csv",
    "neuron_inf2_vision_dit_latency_benchmarks": "inf2-latency_data_vision_dit.csv",
    "neuron_inf2_vision_dit_throughput_benchmarks": "inf2-throughput_data_vision_dit.csv",
    "neuron_inf2_vision_sd_latency_benchmarks": "inf2-latency_data_vision_sd.csv",
    "neuron_inf2_vision_sd_throughput_benchmarks": "inf2-throughput_data_vision_sd.csv",
    "neuron_inf2_vision_transformers_latency_benchmarks": "inf2-latency_data_vision_transformers.csv",
    "neuron_inf2_vision_transformers_throughput_benchmarks": "inf2-throughput_data_vision_transformers.csv",
    "neuron_inf1_benchmarks": "inf1-data.csv",
    "neuron_inf1_cnn_throughput_benchmarks": "inf1-throughput_data_cnn.csv",
    "neuron_inf1_encoder_latency_benchmarks": "inf1-latency_data_encoder.csv",
    "neuron_inf1_encoder_throughput_benchmarks": "inf1-throughput_data_encoder.csv",
}
ENCODER_ROWS = {"inf2-latency": 8, "inf2-throughput": 8, "trn1-latency": 8, "trn1-throughput": 8}


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, SourceOutcome]]:
    return land_raw_files(tmp_path_factory.mktemp("benchmarks"), RECORDED / "neuron_benchmarks", LANDINGS)


def rows(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_every_row_of_every_table_lands_as_a_claim(landed):
    db, outcomes = landed
    assert {sid: o.status for sid, o in outcomes.items()} == dict.fromkeys(LANDINGS, "landed")
    assert all(not o.warnings for o in outcomes.values()), {sid: o.warnings for sid, o in outcomes.items()}
    counts = rows(
        db,
        "SELECT source_id, count(*), bool_and(is_claim), min(claim_note) FROM vendor_benchmarks GROUP BY 1 ORDER BY 1",
    )
    claim = (True, "vendor benchmark, not your pilot")
    assert counts == [
        ("neuron_inf1_benchmarks", 7, *claim),
        ("neuron_inf1_cnn_throughput_benchmarks", 4, *claim),
        ("neuron_inf1_encoder_latency_benchmarks", 5, *claim),
        ("neuron_inf1_encoder_throughput_benchmarks", 8, *claim),
        ("neuron_inf2_encoder_decoder_latency_benchmarks", 2, *claim),
        ("neuron_inf2_encoder_decoder_throughput_benchmarks", 2, *claim),
        ("neuron_inf2_encoder_latency_benchmarks", ENCODER_ROWS["inf2-latency"], *claim),
        ("neuron_inf2_encoder_throughput_benchmarks", ENCODER_ROWS["inf2-throughput"], *claim),
        ("neuron_inf2_latency_benchmarks", 27, *claim),
        ("neuron_inf2_throughput_benchmarks", 27, *claim),
        ("neuron_inf2_vision_cnn_latency_benchmarks", 8, *claim),
        ("neuron_inf2_vision_cnn_throughput_benchmarks", 8, *claim),
        ("neuron_inf2_vision_dit_latency_benchmarks", 4, *claim),
        ("neuron_inf2_vision_dit_throughput_benchmarks", 4, *claim),
        ("neuron_inf2_vision_latency_benchmarks", 21, *claim),
        ("neuron_inf2_vision_sd_latency_benchmarks", 6, *claim),
        ("neuron_inf2_vision_sd_throughput_benchmarks", 6, *claim),
        ("neuron_inf2_vision_throughput_benchmarks", 21, *claim),
        ("neuron_inf2_vision_transformers_latency_benchmarks", 7, *claim),
        ("neuron_inf2_vision_transformers_throughput_benchmarks", 7, *claim),
        ("neuron_trn1_encoder_decoder_latency_benchmarks", 2, *claim),
        ("neuron_trn1_encoder_decoder_throughput_benchmarks", 2, *claim),
        ("neuron_trn1_encoder_latency_benchmarks", ENCODER_ROWS["trn1-latency"], *claim),
        ("neuron_trn1_encoder_throughput_benchmarks", ENCODER_ROWS["trn1-throughput"], *claim),
        ("neuron_trn1_latency_benchmarks", 18, *claim),
        ("neuron_trn1_throughput_benchmarks", 18, *claim),
        ("neuron_trn1_training_decoder_benchmarks", 4, *claim),  # two models, each on trn1 and trn1n
        ("neuron_trn1_training_encoder_benchmarks", 6, *claim),
        ("neuron_trn1_training_nlp_benchmarks", 32, *claim),  # 16 rows, each on trn1 and trn1n
        ("neuron_trn1_training_vision_benchmarks", 2, *claim),
    ]
    assert rows(db, "SELECT DISTINCT instance_family, throughput_unit FROM vendor_benchmarks ORDER BY ALL") == [
        ("inf1", "/sec"),  # "Avg Throughput (/sec)", as printed
        ("inf2", "inference/sec"),
        ("inf2", "inference/second"),
        ("inf2", "tokens/sec"),
        ("inf2", "tokens/second"),
        ("trn1", "inference/sec"),
        ("trn1", "seq/sec"),
        ("trn1", "tokens/sec"),
        ("trn1", "tokens/second"),
        ("trn1n", "seq/sec"),
    ]


def test_figures_are_exact_as_printed(landed):
    db, _ = landed
    first = rows(
        db,
        "SELECT instance_printed, throughput, ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, tpot_p99_ms, batch_size,"
        " tp_degree FROM vendor_benchmarks WHERE model = 'Llama-3-8B' AND instance_type = 'inf2.48xlarge'"
        " AND neuron_release = '2.18.1' AND input_length = 128 AND output_length = 8064 AND batch_size = 1",
    )
    assert first == [
        (
            "Inf2.48xlarge",
            Decimal("144.98"),
            Decimal("29.47"),
            Decimal("42.05"),
            Decimal("7.41"),
            Decimal("7.68"),
            1,
            24,
        )
    ]
    eight_places = rows(
        db,
        "SELECT throughput, ttft_p50_ms FROM vendor_benchmarks WHERE model = 'Llama-2-7b'"
        " AND instance_type = 'trn1.32xlarge' AND output_length = 8064 AND application_type = 'Batch'",
    )
    assert eight_places == [(Decimal("917.2452652"), Decimal("66.4024353"))]
    # One model, instance, release and lengths, measured both ways: the latency table at batch 1, throughput at 8.
    both = rows(
        db,
        "SELECT application_type, batch_size, throughput FROM vendor_benchmarks WHERE model = 'Llama-3-8B'"
        " AND instance_type = 'inf2.48xlarge' AND neuron_release = '2.18.1' AND input_length = 128"
        " AND output_length = 8064 ORDER BY batch_size",
    )
    assert both == [("Real Time", 1, Decimal("144.98")), ("Batch", 8, Decimal("649.17"))]


def test_an_encoder_row_keeps_its_request_latency_and_sequence_length_exact(landed):
    db, _ = landed
    found = rows(
        db,
        "SELECT instance_printed, throughput, latency_p50_ms, latency_p99_ms, batch_size, sequence_length, ttft_p50_ms,"
        " conditions FROM vendor_benchmarks WHERE source_id = 'neuron_inf2_encoder_latency_benchmarks'"
        " AND model = 'albert-base-v2'",
    )
    assert found == [
        ("Inf2.xlarge", Decimal("2119.78480993"), Decimal("0.93722343"), Decimal("1.00183487"), 1, 128, None,
         "framework PyTorch 2.8 · mode Real Time · batch 1 · seq 128 · dtype FP32"),
    ]  # fmt: skip


def test_a_training_row_claims_its_figure_for_each_instance_it_names_at_its_scale(landed):
    db, _ = landed
    found = rows(
        db,
        "SELECT instance_type, instance_printed, throughput, throughput_unit, nodes, topology, batch_size,"
        " global_batch_size, optimizer, sequence_length FROM vendor_benchmarks"
        " WHERE source_id = 'neuron_trn1_training_decoder_benchmarks' AND model = 'Llama-3.1-8B pre-training'"
        " ORDER BY instance_type",
    )
    printed = "trn1.32xlarge/trn1n.32xlarge"
    scale = (32, "TP=32 DP=32 PP=1 ZeRO-1", 1, 1024, "AdamW", 8192)
    assert found == [
        ("trn1.32xlarge", printed, Decimal("47.95"), "seq/sec", *scale),
        ("trn1n.32xlarge", printed, Decimal("47.95"), "seq/sec", *scale),
    ]


def test_a_training_run_keeps_its_mfu_and_compute_cost_per_token_as_printed(landed):
    db, _ = landed
    nlp = "source_id = 'neuron_trn1_training_nlp_benchmarks' AND instance_type = 'trn1.32xlarge'"
    costed = rows(
        db,
        "SELECT model, neuron_release, mfu_pct, compute_cost_per_token_tflops FROM vendor_benchmarks"
        f" WHERE {nlp} AND compute_cost_per_token_tflops IS NOT NULL ORDER BY model",
    )
    assert costed == [
        ("GPT3-175B pre-training", "2.13.0", Decimal("33.14"), Decimal("2197")),
        ("GPT3-23B pre-training", "2.15.0", Decimal("29.65"), Decimal("289")),
        ("GPT3-46B pre-training", "2.15.0", Decimal("27.7"), Decimal("578")),
        ("Llama2-13B pre-training", "2.15.0", Decimal("20.7"), Decimal("336")),
        ("Llama2-7B pre-training", "2.15.0", Decimal("14.8"), Decimal("336")),
    ]
    # A row that prints no MFU (a BERT run at 2.14.0, the four fine-tuning runs) keeps it unknown, never 0.
    assert rows(db, f"SELECT count(*) FROM vendor_benchmarks WHERE {nlp} AND mfu_pct IS NULL") == [(5,)]


def test_an_inf1_row_keeps_its_neuron_cores_and_model_details_as_conditions(landed):
    db, _ = landed
    found = rows(
        db,
        "SELECT throughput, latency_p50_ms, latency_p99_ms, neuron_cores, sequence_length, model_details, conditions"
        " FROM vendor_benchmarks WHERE source_id = 'neuron_inf1_encoder_throughput_benchmarks'"
        " AND model = 'BERT base (bert-base-cased)'",
    )
    assert found == [
        (Decimal("1095.4"), Decimal("58.3"), Decimal("65.0"), 4, 128, "fp32, sequence-length=128",
         "framework PyTorch 1.13.1 · mode Batch · batch 8 · seq 128 · cores 4 · details fp32, sequence-length=128"),
    ]  # fmt: skip
    # The combined table's two ResNet-50 runs differ in framework, batch and details: two claims, neither refused.
    resnet = rows(
        db,
        "SELECT neuron_release, framework, batch_size, model_details, throughput FROM vendor_benchmarks"
        " WHERE source_id = 'neuron_inf1_benchmarks' AND model = 'Resnet-50' ORDER BY neuron_release",
    )
    assert resnet == [
        ("2.12.0", "Tensorflow 1.15", 10, "fp16", Decimal("2207")),
        ("2.15.0", "PyTorch 1.13", 5, "fp32", Decimal("923")),
    ]


def test_an_encoder_decoder_keeps_its_latency_per_token_under_its_own_name():
    batch = parse((RECORDED / "neuron_benchmarks" / "inf2-latency_data_encoder_decoder.csv").read_bytes(), READER)
    t5 = next(row for row in batch.rows if row.model == "t5-3b")
    found = (t5.throughput, t5.token_latency_p50_ms, t5.token_latency_p99_ms, t5.tpot_p50_ms, t5.latency_p50_ms)
    assert found == (Decimal("108.18"), Decimal("9.25"), Decimal("9.26"), None, None)
    assert t5.dp_degree == 1 and t5.throughput_unit == "tokens/second"


def test_a_vision_row_keeps_its_image_size_and_a_two_part_release_reads_as_its_release():
    dit = parse((RECORDED / "neuron_benchmarks" / "inf2-latency_data_vision_dit.csv").read_bytes(), READER)
    assert {row.neuron_release for row in dit.rows} == {"2.20.0"}  # printed "2.20"
    assert all(row.image_size and f"image {row.image_size}" in row.conditions for row in dit.rows)
