"""The vendor benchmarks' table, versioned per source like the specifications: one row per model, instance, SDK
release and run conditions."""

from __future__ import annotations

import pyarrow as pa

from pipelines.benchmarks.records import BenchmarkBatch
from warehouse.landing import Snapshot
from warehouse.versioning import VersionedTable

FIGURE = pa.decimal128(28, 10)  # figures as printed (the real tables print up to 8 decimals), exact

BENCHMARKS = VersionedTable(
    name="vendor_benchmark_history",
    key_columns=("model", "instance_type", "neuron_release", "conditions"),
    attribute_fields=(
        pa.field("model", pa.string()),
        pa.field("instance_type", pa.string()),
        pa.field("neuron_release", pa.string()),
        pa.field("conditions", pa.string()),
        pa.field("instance_printed", pa.string()),
        pa.field("framework", pa.string()),
        pa.field("task", pa.string()),
        pa.field("application_type", pa.string()),
        pa.field("batch_size", pa.int64()),
        pa.field("tp_degree", pa.int64()),
        pa.field("input_length", pa.int64()),
        pa.field("output_length", pa.int64()),
        pa.field("model_data_type", pa.string()),
        pa.field("throughput", FIGURE),
        pa.field("throughput_unit", pa.string()),
        pa.field("ttft_p50_ms", FIGURE),
        pa.field("ttft_p99_ms", FIGURE),
        pa.field("tpot_p50_ms", FIGURE),
        pa.field("tpot_p99_ms", FIGURE),
        pa.field("sequence_length", pa.int64()),
        pa.field("latency_p50_ms", FIGURE),
        pa.field("latency_p99_ms", FIGURE),
        pa.field("nodes", pa.int64()),
        pa.field("topology", pa.string()),
        pa.field("global_batch_size", pa.int64()),
        pa.field("optimizer", pa.string()),
        pa.field("work", pa.string()),
        pa.field("dp_degree", pa.int64()),
        pa.field("token_latency_p50_ms", FIGURE),
        pa.field("token_latency_p99_ms", FIGURE),
        pa.field("image_size", pa.string()),
        pa.field("mfu_pct", FIGURE),
        pa.field("compute_cost_per_token_tflops", FIGURE),
        pa.field("neuron_cores", pa.int64()),
        pa.field("model_details", pa.string()),
    ),
)
BENCHMARK_TABLES = (BENCHMARKS.name,)
CURRENT_ROWS = "SELECT count(*) FROM vendor_benchmark_history WHERE source_id = $source_id AND valid_to IS NULL"


def benchmark_snapshots(batch: BenchmarkBatch) -> list[Snapshot]:
    return [Snapshot(BENCHMARKS, [r.model_dump(mode="python") | {"conditions": r.conditions} for r in batch.rows])]
