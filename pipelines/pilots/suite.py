"""Great Expectations gate for a batch of pilot results, on the project's shared runner (exact Decimals).

pydantic has checked each row; the suite checks what only the batch shows (one row per workload and offering)
and restates the row rules, so a record built around pydantic still cannot land.
"""

from __future__ import annotations

from typing import Any

from pipelines.pilots.records import PilotResult, pilot_key
from schemas.gx_frames import frame
from schemas.gx_runner import ValidationReport, import_gx, run_suite

SUITE = "pilot_results"
COLUMNS = ["row", "pilot_key", "workload", "offering", "price_kind", "work_unit", "units_per_hour", "quality_passed"]
WORK_UNITS = ["tokens", "steps", "requests"]


def pilot_rows(records: list[PilotResult]) -> list[dict[str, Any]]:
    return [
        {
            "row": number,
            "pilot_key": pilot_key(r),
            "workload": r.workload,
            "offering": r.offering,
            "price_kind": r.price_kind,
            "work_unit": r.work_unit,
            "units_per_hour": r.units_per_hour,
            "quality_passed": r.quality_passed,
        }
        for number, r in enumerate(records, start=1)
    ]


def validate_pilots(records: list[PilotResult]) -> ValidationReport:
    _, gxe = import_gx()
    rows = pilot_rows(records)
    expectations = [
        gxe.ExpectTableRowCountToBeBetween(min_value=1),
        *(gxe.ExpectColumnValuesToNotBeNull(column=c) for c in ("workload", "offering", "price_kind", "work_unit")),
        gxe.ExpectColumnValuesToBeUnique(column="pilot_key"),
        gxe.ExpectColumnValuesToBeInSet(column="work_unit", value_set=WORK_UNITS),
        gxe.ExpectColumnValuesToBeBetween(column="units_per_hour", min_value=0, strict_min=True),
        gxe.ExpectColumnValuesToBeInSet(column="quality_passed", value_set=[True, False]),
    ]
    return run_suite(SUITE, expectations, frame(rows, COLUMNS, numbers=["units_per_hour"]), rows)
