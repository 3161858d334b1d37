"""The Neuron benchmark reader on small tables: which header is which figure, a row naming two instance types, and
what is refused alone."""

from __future__ import annotations

from decimal import Decimal

from pipelines.adapters.neuron_benchmarks import parse
from pipelines.sources.file import SourceSpec

SOURCE = SourceSpec(
    id="bench_test",
    adapter="neuron_benchmarks",
    url="https://raw.githubusercontent.com/aws-neuron/aws-neuron-sdk/master/about-neuron/benchmarks/x.csv",
    sample="neuron/benchmarks/inf2/latency_data_decoder.csv",
)


def table(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def test_a_per_token_latency_is_never_read_as_a_request_latency():
    batch = parse(
        table(
            "Model,Inst. Type,Throughput (tokens/second),Latency per Token P50 (ms),Latency P99 (ms),Neuron Version",
            "t5-3b,Inf2.24xlarge,108.18,9.25,120.5,2.18.0",
        ),
        SOURCE,
    )
    (row,) = batch.rows
    assert (row.latency_p50_ms, row.latency_p99_ms, row.tpot_p50_ms) == (None, Decimal("120.5"), None)
    assert row.token_latency_p50_ms == Decimal("9.25")  # kept as printed, under its own name


def test_a_training_row_naming_two_instance_types_is_claimed_for_each_and_a_repeat_is_refused():
    header = "Model,Instance-Type,Nodes,Globalbatch,Performance [seq/sec],Neuron Version"
    line = "Llama pre-training,trn1.32xlarge/trn1n.32xlarge,4,256,12.5,2.31.0"
    batch = parse(table(header, line, line), SOURCE)
    assert [(r.instance_type, r.work, r.throughput_unit, r.nodes) for r in batch.rows] == [
        ("trn1.32xlarge", "training", "seq/sec", 4),
        ("trn1n.32xlarge", "training", "seq/sec", 4),
    ]
    assert len(batch.refused) == 2 and all(r.startswith("row 2: repeats Llama pre-training") for r in batch.refused)
