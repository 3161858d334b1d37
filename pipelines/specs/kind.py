"""The `spec` kind: accelerator chips, configurations, the Neuron SDK release, launch dates, vendor claims and the
NVIDIA reference. Specifications carry no price: only the row-count and shape rules apply."""

from __future__ import annotations

from datetime import date

from pipelines.kind import History, Kind, LandedSoFar, PreparedBatch
from pipelines.sources.file import SourceSpec
from pipelines.specs.landing import CURRENT_ROWS, SPEC_TABLES, spec_snapshots
from pipelines.specs.records import SpecBatch
from pipelines.specs.suite import SUITE, validate_specs_many


def _prepare(batch: SpecBatch, source: SourceSpec, _on: date, _state: LandedSoFar) -> PreparedBatch:
    counts = {"chip_rows": len(batch.chips), "config_rows": len(batch.configs), "release_rows": len(batch.releases)}
    warnings = [f"[{source.id}] {warning}" for warning in batch.warnings]  # what the parser tolerated
    return PreparedBatch(
        batch, warnings, counts | {"launch_rows": len(batch.launches), "claim_rows": len(batch.claims)}
    )


KIND = Kind(
    "spec",
    _prepare,
    lambda group: validate_specs_many({sid: batch for sid, (_, batch) in group.items()}),
    spec_snapshots,
    lambda b: {},
    lambda b: b.row_count,
    history=History(SPEC_TABLES, current_rows=CURRENT_ROWS),
    asset_group="spec_sources",
    checks=((SUITE, "ge_accelerator_specs"),),
)
