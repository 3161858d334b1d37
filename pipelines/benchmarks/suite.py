"""The vendor benchmarks' expectation suite: what pydantic cannot see across rows (one row per model, instance,
release and conditions) and what a benchmark table must hold (a throughput unit, a release number)."""

from __future__ import annotations

from typing import Any

from pipelines.benchmarks.records import RELEASE, BenchmarkBatch
from schemas.gx_stacked import RowSuite, StackedSuite

SUITE = "vendor_benchmarks"
COLUMNS = ["business_key", "neuron_release", "throughput_unit", "throughput"]


def benchmark_rows(batch: BenchmarkBatch) -> list[dict[str, Any]]:
    return [
        {
            "business_key": f"{r.model}|{r.instance_type}|{r.neuron_release}|{r.conditions}",
            "neuron_release": r.neuron_release,
            "throughput_unit": r.throughput_unit,
            "throughput": str(r.throughput),  # text: GE's frames hold no Decimal; the record checked it is > 0
        }
        for r in batch.rows
    ]


def _row_count(gxe: Any) -> Any:
    return gxe.ExpectTableRowCountToBeBetween(min_value=1)


def _columns(gxe: Any) -> list[Any]:
    return [
        gxe.ExpectColumnValuesToBeUnique(column="business_key"),
        gxe.ExpectColumnValuesToMatchRegex(column="neuron_release", regex=RELEASE),
        gxe.ExpectColumnValuesToMatchRegex(column="throughput_unit", regex=r"/\s*s(ec(ond)?)?\b"),
        gxe.ExpectColumnValuesToNotBeNull(column="throughput"),
    ]


SUITE_ROWS = RowSuite(StackedSuite(SUITE, COLUMNS, scoped=["business_key"]), benchmark_rows, _row_count, _columns)
validate_benchmarks = SUITE_ROWS.validate
validate_benchmarks_many = SUITE_ROWS.validate_many
