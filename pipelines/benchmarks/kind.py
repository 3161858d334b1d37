"""The `vendor_benchmark` kind: the vendor's published throughput and latency figures. It carries no price: only
the row-count and shape rules apply, and a row refused alone is named."""

from __future__ import annotations

from datetime import date

from pipelines.benchmarks.landing import BENCHMARK_TABLES, CURRENT_ROWS, benchmark_snapshots
from pipelines.benchmarks.records import BenchmarkBatch
from pipelines.benchmarks.suite import SUITE, validate_benchmarks_many
from pipelines.kind import REFUSED, REFUSED_MARK, History, Kind, LandedSoFar, PreparedBatch
from pipelines.sources.file import SourceSpec


def _prepare(batch: BenchmarkBatch, source: SourceSpec, _on: date, _state: LandedSoFar) -> PreparedBatch:
    warnings = [f"[{source.id}] {warning}" for warning in batch.warnings]
    warnings += [f"[{source.id}] {REFUSED_MARK} {row}" for row in batch.refused]
    return PreparedBatch(batch, warnings, {"benchmark_rows": len(batch.rows), REFUSED: len(batch.refused)})


KIND = Kind(
    "vendor_benchmark",
    _prepare,
    lambda group: validate_benchmarks_many({sid: batch for sid, (_, batch) in group.items()}),
    benchmark_snapshots,
    lambda b: {},
    lambda b: b.row_count,
    history=History(BENCHMARK_TABLES, current_rows=CURRENT_ROWS),
    asset_group="benchmark_sources",
    checks=((SUITE, "ge_vendor_benchmarks"),),
)
