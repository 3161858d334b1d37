"""Great Expectations gate for accelerator specification batches (kind `spec`).

Every record of a batch becomes one row of a common frame: which record, its business key, its one figure
in a single unit (GiB, GB/s, TFLOPS/TOPS, chip count), the unit and, for compute, the number format. The
suite checks what pydantic cannot see across records: keys unique within a batch, figures in a plausible
band (a GiB read as TiB, a TFLOPS read as PFLOPS falls out), units and formats from the known sets.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pipelines.specs.records import NUMBER_FORMATS, SpecBatch
from schemas.gx_stacked import RowSuite, StackedSuite

SUITE = "accelerator_specs"
COLUMNS = ["record", "business_key", "figure", "figure_unit", "number_format"]
UNITS = ["GiB", "GB/s", "tera-ops", "chips", "days"]
PLAUSIBLE_MAX = Decimal(10_000_000)  # 10 million GiB or TFLOPS: beyond any UltraServer, so a unit slip


def spec_rows(batch: SpecBatch) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def add(record: str, key: str, figure: Decimal | int | None, unit: str | None, fmt: str | None = None) -> None:
        rows.append(
            {
                "record": record,
                "business_key": f"{record}|{key}",
                "figure": figure,
                "figure_unit": unit,
                "number_format": fmt,
            }
        )

    for chip in batch.chips:
        add("chip_memory", chip.chip, chip.memory_gib, "GiB")
        add("chip_bandwidth", chip.chip, chip.bandwidth_gb_s, "GB/s")
        for c in chip.compute:
            add("chip_compute", f"{chip.chip}|{c.number_format}|{c.sparse}", c.tera, "tera-ops", c.number_format)
    for config in batch.configs:
        add("config_chips", config.configuration, config.chips, "chips")
        for c in config.compute:
            add(
                "config_compute",
                f"{config.configuration}|{c.number_format}|{c.sparse}",
                c.tera,
                "tera-ops",
                c.number_format,
            )
    for release in batch.releases:
        add("sdk_release", release.product, None, None)
    for launch in batch.launches:
        add("launch", launch.family, None, None)
    for gpu in batch.gpus:
        for f in gpu.figures:
            unit = {"GiB": "GiB", "GB/s": "GB/s", "TFLOPS": "tera-ops"}[f.normalised_unit]
            add(f"gpu_{f.figure}", f"{gpu.gpu}|{f.key}", f.normalised, unit, f.number_format)
    for claim in batch.claims:
        add("claim", f"{claim.page_url}|{claim.claim_text}", None, None)
    return rows


def _row_count(gxe: Any) -> Any:
    return gxe.ExpectTableRowCountToBeBetween(min_value=1)


def _columns(gxe: Any) -> list[Any]:
    return [
        gxe.ExpectColumnValuesToNotBeNull(column="record"),
        gxe.ExpectColumnValuesToNotBeNull(column="business_key"),
        gxe.ExpectColumnValuesToBeUnique(column="business_key"),
        gxe.ExpectColumnValuesToBeBetween(column="figure", min_value=0, max_value=int(PLAUSIBLE_MAX), strict_min=True),
        gxe.ExpectColumnValuesToBeInSet(column="figure_unit", value_set=UNITS),
        gxe.ExpectColumnValuesToBeInSet(column="number_format", value_set=list(NUMBER_FORMATS)),
    ]


# Alone or many sources stacked into one GE run (each source gets the report it would alone).
STACKED = StackedSuite(SUITE, COLUMNS, numbers=["figure"], scoped=["business_key"])
SUITE_ROWS = RowSuite(STACKED, spec_rows, _row_count, _columns)
validate_specs = SUITE_ROWS.validate
validate_specs_many = SUITE_ROWS.validate_many
