"""The `aws` kind: instance specifications and prices from the product and Capacity Blocks pages."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from pipelines.aws.landing import CHANGES, CURRENT_PRICES, CURRENT_ROWS, PRICES, SPECS, aws_snapshots
from pipelines.aws.records import SourceBatch
from pipelines.aws.suite import PRICES_SUITE, SPECS_SUITE, validate_batch_many
from pipelines.kind import History, Key, Kind, LandedSoFar, PreparedBatch
from pipelines.sources.file import SourceSpec
from schemas.gx_runner import ValidationReport


def _prepare(batch: SourceBatch, _source: SourceSpec, _on: date, _state: LandedSoFar) -> PreparedBatch:
    return PreparedBatch(batch, [], {"spec_rows": len(batch.specs), "price_rows": len(batch.prices)})


def _prices(batch: SourceBatch) -> dict[Key, Decimal]:
    return {(p.instance_type, p.price_kind.value, p.region): p.usd_per_instance_hour for p in batch.prices}


def _validate(group: dict[str, tuple[SourceSpec, Any]]) -> dict[str, list[ValidationReport]]:
    batches = {sid: batch for sid, (_, batch) in group.items()}
    return validate_batch_many(
        batches, expects_prices={sid: source.expects_prices for sid, (source, _) in group.items()}
    )


KIND = Kind(
    "aws",
    _prepare,
    _validate,
    aws_snapshots,
    _prices,
    lambda b: len(b.specs) + len(b.prices),
    history=History((PRICES.name, SPECS.name), CURRENT_PRICES, CURRENT_ROWS, changes=CHANGES),
    asset_group="aws_sources",
    checks=((SPECS_SUITE, "ge_instance_specs"), (PRICES_SUITE, "ge_instance_prices")),
)
