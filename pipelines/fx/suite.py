"""The ECB rates' expectation suite (kind `fx`): positive, one per currency and date, USD present."""

from __future__ import annotations

from pipelines.fx.records import FxBatch, FxRate
from schemas.gx_frames import frame, record_row
from schemas.gx_runner import ValidationReport, import_gx, run_suite

FX_SUITE = "fx_rates"


FX_COLUMNS = [*FxRate.model_fields, "business_key"]


FX_NUMBERS = ["units_per_eur"]


def validate_fx(batch: FxBatch) -> list[ValidationReport]:
    _, gxe = import_gx()
    rows = [{**record_row(rate), "business_key": f"{rate.currency}|{rate.rate_date}"} for rate in batch.rates]
    suite = [
        gxe.ExpectTableRowCountToBeBetween(min_value=1),
        gxe.ExpectColumnValuesToNotBeNull(column="currency"),
        gxe.ExpectColumnValuesToNotBeNull(column="rate_date"),
        gxe.ExpectColumnValuesToNotBeNull(column="units_per_eur"),  # the range check below skips what is missing
        gxe.ExpectColumnValuesToMatchRegex(column="currency", regex=r"^[A-Z]{3}$"),
        gxe.ExpectColumnValuesToBeBetween(column="units_per_eur", min_value=0, strict_min=True),
        gxe.ExpectColumnValuesToBeUnique(column="business_key"),
        # USD is the leg every conversion goes through.
        gxe.ExpectColumnDistinctValuesToContainSet(column="currency", value_set=["USD"]),
    ]
    return [run_suite(FX_SUITE, suite, frame(rows, FX_COLUMNS, numbers=FX_NUMBERS), rows)]
