"""The `neuron_gate` kind: the Neuron package manifest, the documentation's status statements and release dates.
It carries no price: only the row-count and shape rules apply, and a manifest row refused alone is named."""

from __future__ import annotations

from datetime import date

from pipelines.kind import REFUSED, REFUSED_MARK, History, Kind, LandedSoFar, PreparedBatch
from pipelines.neuron_gate.landing import CURRENT_ROWS, GATE_TABLES, gate_snapshots
from pipelines.neuron_gate.records import GateBatch
from pipelines.neuron_gate.suite import SUITE, validate_gate_many
from pipelines.sources.file import SourceSpec


def _prepare(batch: GateBatch, source: SourceSpec, _on: date, _state: LandedSoFar) -> PreparedBatch:
    warnings = [f"[{source.id}] {warning}" for warning in batch.warnings]  # what the parser tolerated
    warnings += [f"[{source.id}] {REFUSED_MARK} {row}" for row in batch.refused]
    counts = {
        "package_rows": len(batch.packages),
        "statement_rows": len(batch.statements),
        "release_rows": len(batch.releases),
        REFUSED: len(batch.refused),
    }
    return PreparedBatch(batch, warnings, counts)


KIND = Kind(
    "neuron_gate",
    _prepare,
    lambda group: validate_gate_many({sid: batch for sid, (_, batch) in group.items()}),
    gate_snapshots,
    lambda b: {},
    lambda b: b.row_count,
    history=History(GATE_TABLES, current_rows=CURRENT_ROWS),
    asset_group="neuron_gate_sources",
    checks=((SUITE, "ge_neuron_gate"),),
)
