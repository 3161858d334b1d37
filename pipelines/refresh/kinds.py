"""What differs between source kinds, behind one small interface the refresh path uses.

- aws: instance specs and prices -> aws_instance_spec_history / aws_instance_price_history.
- gpu: provider offers, normalised (canonical names, FX to USD) -> gpu_listing_history.
- fx:  ECB reference rates -> fx_rates (facts by date; a correction is a new version).
- spec: accelerator chips, configurations, SDK release, launch dates, vendor claims -> accelerator_*_history.
- pricelist: AWS price-list prices, one region per batch -> aws_pricelist_price_history (versioned per region).
Each kind says how to prepare a parsed batch for validation, which suites validate it, which snapshots land
it, and what to count in its metadata.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Protocol

from pipelines.errors import ValidationFailed
from pipelines.gpu.normalise import FxTable, MissingFxRate, NormalisedBatch, StaleRate, normalise
from pipelines.pricelist.checks import check_one_on_demand, check_priced, check_publication_date
from pipelines.pricelist.spot import priced_quotes
from pipelines.refresh.drift import Key
from pipelines.refresh.state import WarehouseState
from pipelines.sources.file import SourceSpec
from schemas.expectations import ValidationReport, validate_batch_many
from schemas.gpu import FxBatch, GpuBatch
from schemas.gpu_expectations import validate_fx, validate_listings_many
from schemas.pricelist import PriceListBatch, PriceListKind, PriceListPrice
from schemas.pricelist_expectations import validate_pricelist_many
from schemas.records import SourceBatch
from schemas.spec_expectations import validate_specs_many
from schemas.specs import SpecBatch
from warehouse.gpu_landing import fx_snapshots, gpu_snapshots
from warehouse.landing import Snapshot, aws_snapshots
from warehouse.pricelist_landing import pricelist_snapshots
from warehouse.spec_landing import spec_snapshots


class LandedSoFar(Protocol):
    """What preparing a batch reads of what is landed (WarehouseState; the gate bench's samples stand in for it)."""

    def fx(self) -> FxTable: ...

    def type_attributes(self) -> dict[str, tuple[str | None, str | None]]: ...


# Parts of a batch refused one by one while the rest lands (a spot row, a Lambda table): counted under this key,
# each named in a warning carrying REFUSED_MARK. A source with any is a partial failure (the refresh exits 1).
REFUSED = "refused"
REFUSED_MARK = "refused, not landed:"


@dataclass(frozen=True)
class PreparedBatch:
    batch: Any
    warnings: list[str]
    counts: dict[str, int]


@dataclass(frozen=True)
class Kind:
    name: str
    prepare: Callable[[Any, SourceSpec, date, LandedSoFar], PreparedBatch]
    # Great Expectations on many batches of this kind at once, keyed by source id (one stacked run is far
    # cheaper than one run per source); each source's reports are the ones it would get alone.
    validate_many: Callable[[dict[str, tuple[SourceSpec, Any]]], dict[str, list[ValidationReport]]]
    snapshots: Callable[[Any], list[Snapshot]]
    # Prices by business key, as the drift rules compare them with the current version.
    prices: Callable[[Any], dict[Key, Decimal]]
    # Rows the batch would keep open, for the row-drop rule (AWS: specs and prices, so spec-only pages count).
    row_count: Callable[[Any], int]
    # What part of the source's current version the batch replaces (price list: its region), so the drift rules
    # compare a region with that region only. Empty: the whole source.
    scope: Callable[[Any], dict[str, Any]] = lambda _batch: {}
    # Gates against what is already landed (price list: the publication date); raise ValidationFailed.
    gates: Callable[[Any, WarehouseState], None] | None = None


def _prepare_aws(batch: SourceBatch, _source: SourceSpec, _on: date, _state: LandedSoFar) -> PreparedBatch:
    return PreparedBatch(batch, [], {"spec_rows": len(batch.specs), "price_rows": len(batch.prices)})


def _stale_rate_warning(source: SourceSpec, on: date, stale: StaleRate) -> str:
    return (
        f"[{source.id}] {stale.currency} converted at the ECB rate of {stale.rate_date.isoformat()}, "
        f"{stale.age_days} days before the fetch date {on.isoformat()} (limit {source.fx.max_rate_age_days}): "
        f"{stale.listings} listing(s) landed with fx_rate_stale"
    )


def _prepare_gpu(batch: GpuBatch, source: SourceSpec, on: date, state: LandedSoFar) -> PreparedBatch:
    try:
        normalised = normalise(batch, state.fx(), on, source.fx.max_rate_age_days)
    except MissingFxRate as exc:  # refused, never guessed
        raise ValidationFailed(source.id, [f"fx: {exc}"]) from exc
    warnings = [
        f"[{source.id}] unknown GPU name {name!r}: kept with gpu_model NULL" for name in normalised.unknown_names
    ]
    warnings += [f"[{source.id}] listed without a price (not landed): {name}" for name in normalised.unpriced]
    warnings += [f"[{source.id}] {REFUSED_MARK} {part}" for part in batch.refused]
    warnings += [_stale_rate_warning(source, on, stale) for stale in normalised.stale_rates]
    return PreparedBatch(
        normalised,
        warnings,
        {
            "listing_rows": len(normalised.listings),
            "unpriced_rows": len(normalised.unpriced),
            "unknown_gpu_names": len(normalised.unknown_names),
            "stale_fx_rate_rows": sum(s.listings for s in normalised.stale_rates),
            REFUSED: len(batch.refused),
        },
    )


def _prepare_fx(batch: FxBatch, _source: SourceSpec, _on: date, _state: LandedSoFar) -> PreparedBatch:
    return PreparedBatch(batch, [], {"rate_rows": len(batch.rates)})


def _prepare_spec(batch: SpecBatch, source: SourceSpec, _on: date, _state: LandedSoFar) -> PreparedBatch:
    counts = {"chip_rows": len(batch.chips), "config_rows": len(batch.configs), "release_rows": len(batch.releases)}
    warnings = [f"[{source.id}] {warning}" for warning in batch.warnings]  # what the parser tolerated
    return PreparedBatch(
        batch, warnings, counts | {"launch_rows": len(batch.launches), "claim_rows": len(batch.claims)}
    )


def _aws_prices(batch: SourceBatch) -> dict[Key, Decimal]:
    return {(p.instance_type, p.price_kind.value, p.region): p.usd_per_instance_hour for p in batch.prices}


def _gpu_prices(batch: NormalisedBatch) -> dict[Key, Decimal]:
    return {(item.listing, item.price_kind.value, item.region): item.usd_per_gpu_hour for item in batch.listings}


def _validate_aws(group: dict[str, tuple[SourceSpec, Any]]) -> dict[str, list[ValidationReport]]:
    batches = {sid: batch for sid, (_, batch) in group.items()}
    return validate_batch_many(
        batches, expects_prices={sid: source.expects_prices for sid, (source, _) in group.items()}
    )


def _prepare_pricelist(batch: PriceListBatch, source: SourceSpec, _on: date, state: LandedSoFar) -> PreparedBatch:
    if batch.pending:  # spot quotes, Savings Plans rates: priced with the price list's attributes of the same type
        batch = priced_quotes(batch, state.type_attributes())
    check_priced(batch)  # UnpricedTypes: an accelerator type without a count fails its source, named
    check_one_on_demand(batch)  # DuplicateOnDemand: the region is refused with the duplicates named
    kinds = [p.price_kind for p in batch.prices]
    warnings = [f"[{source.id}] {warning}" for warning in batch.warnings]
    kept = "its last landed version, if any, stays current"
    warnings += [f"[{source.id}] {REFUSED_MARK} {row} ({kept})" for row in batch.refused]  # spot rows, with why
    counts = {f"{kind.value}_rows": kinds.count(kind) for kind in PriceListKind} | {"price_rows": len(kinds)}
    return PreparedBatch(batch, warnings, counts | {REFUSED: len(batch.refused)})


def pricelist_kind_label(price: PriceListPrice) -> str:
    """The price kind with its reserved terms, as the drift rules name a price (and CURRENT_PRICES spells it)."""
    if price.lease_years is None or price.purchase_option is None:
        return price.price_kind.value
    terms = " ".join(t for t in (price.purchase_option.value, price.offering_class and price.offering_class.value) if t)
    return f"{price.price_kind.value.replace('_', ' ')} {price.lease_years}y {terms}"


def _pricelist_prices(batch: PriceListBatch) -> dict[Key, Decimal]:
    return {
        (p.instance_type, pricelist_kind_label(p), p.region_code): p.effective_usd_per_instance_hour
        for p in batch.prices
    }


def _pricelist_gates(batch: PriceListBatch, state: WarehouseState) -> None:
    check_publication_date(batch, state.publication_date(batch.source_id, batch.region_code))


KINDS = {
    "aws": Kind(
        "aws",
        _prepare_aws,
        _validate_aws,
        aws_snapshots,
        _aws_prices,
        lambda b: len(b.specs) + len(b.prices),
    ),
    "gpu": Kind(
        "gpu",
        _prepare_gpu,
        lambda group: validate_listings_many({sid: batch.listings for sid, (_, batch) in group.items()}),
        gpu_snapshots,
        _gpu_prices,
        lambda b: len(b.listings),
    ),
    # Rates are facts by date, not versions of one another: no row or price rule applies, only the shape rule
    # (the batch's shape, compared with the last one landed).
    "fx": Kind(
        "fx",
        _prepare_fx,
        lambda group: {sid: validate_fx(batch) for sid, (_, batch) in group.items()},
        fx_snapshots,
        lambda b: {},
        lambda b: 0,
    ),
    # Specifications carry no price: only the row-count and shape rules apply.
    "spec": Kind(
        "spec",
        _prepare_spec,
        lambda group: validate_specs_many({sid: batch for sid, (_, batch) in group.items()}),
        spec_snapshots,
        lambda b: {},
        lambda b: b.row_count,
    ),
    "pricelist": Kind(
        "pricelist",
        _prepare_pricelist,
        lambda group: validate_pricelist_many({sid: batch for sid, (_, batch) in group.items()}),
        pricelist_snapshots,
        _pricelist_prices,
        lambda b: len(b.prices) + len(b.refused),  # a refused row keeps its last version open
        scope=lambda b: {"region_code": b.region_code},
        gates=_pricelist_gates,
    ),
}
