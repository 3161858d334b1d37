"""The `fx` kind: ECB reference rates. Rates are facts by date, not versions of one another: no row or price rule
applies, only the shape rule (the batch's shape, compared with the last one landed)."""

from __future__ import annotations

from datetime import date

from pipelines.fx.landing import CURRENT_FROM_SOURCE, FORGET_SOURCE, fx_snapshots
from pipelines.fx.records import FxBatch
from pipelines.fx.suite import FX_SUITE, validate_fx
from pipelines.kind import History, Kind, LandedSoFar, PreparedBatch
from pipelines.sources.file import SourceSpec


def _prepare(batch: FxBatch, _source: SourceSpec, _on: date, _state: LandedSoFar) -> PreparedBatch:
    return PreparedBatch(batch, [], {"rate_rows": len(batch.rates)})


KIND = Kind(
    "fx",
    _prepare,
    lambda group: {sid: validate_fx(batch) for sid, (_, batch) in group.items()},
    fx_snapshots,
    lambda b: {},
    lambda b: 0,
    history=History(facts_current=CURRENT_FROM_SOURCE, facts_forget=FORGET_SOURCE),
    asset_group="fx_sources",
    checks=((FX_SUITE, "ge_fx_rates"),),
)
