"""The `pricelist` kind: AWS price-list prices, one region per batch (the spot feed: every region), versioned per
region, so the drift rules compare a region with that region only."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from functools import partial

from pipelines.kind import REFUSED, REFUSED_MARK, FanOut, History, Key, Kind, LandedSoFar, PastVersions, PreparedBatch
from pipelines.pricelist.backfill_landing import backfilled_fetches, version_snapshots
from pipelines.pricelist.checks import check_one_on_demand, check_priced, check_publication_date
from pipelines.pricelist.landing import (
    CHANGES,
    CURRENT_PRICES,
    CURRENT_ROWS,
    PRICELIST_OFFERS,
    PRICELIST_PRICES,
    PRICELIST_TYPES,
    latest_type_attributes,
    pricelist_snapshots,
    publication_landed,
)
from pipelines.pricelist.records import PriceListBatch, PriceListKind, PriceListPrice
from pipelines.pricelist.region_units import (
    index_units,
    landed_version,
    logged_units,
    prices_with_type_attributes,
    reads_region_index,
    sample_units,
)
from pipelines.pricelist.spot import priced_quotes
from pipelines.pricelist.suite import PRICELIST_SUITE, validate_pricelist_many
from pipelines.sources.file import SourceSpec


def _prepare(batch: PriceListBatch, source: SourceSpec, _on: date, state: LandedSoFar) -> PreparedBatch:
    if batch.pending:  # spot quotes, Savings Plans rates: priced with the price list's attributes of the same type
        batch = priced_quotes(batch, state.read(latest_type_attributes))
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


def _prices(batch: PriceListBatch) -> dict[Key, Decimal]:
    return {
        (p.instance_type, pricelist_kind_label(p), p.region_code): p.effective_usd_per_instance_hour
        for p in batch.prices
    }


def _gates(batch: PriceListBatch, landed: LandedSoFar) -> None:
    check_publication_date(batch, landed.read(partial(publication_landed, batch.source_id, batch.region_code)))


KIND = Kind(
    "pricelist",
    _prepare,
    lambda group: validate_pricelist_many({sid: batch for sid, (_, batch) in group.items()}),
    pricelist_snapshots,
    _prices,
    lambda b: len(b.prices) + len(b.refused),  # a refused row keeps its last version open
    scope=lambda b: {"region_code": b.region_code},
    gates=_gates,
    history=History(
        (PRICELIST_PRICES.name, PRICELIST_TYPES.name, PRICELIST_OFFERS.name),
        CURRENT_PRICES,
        CURRENT_ROWS,
        changes=CHANGES,
    ),
    asset_group="aws_pricelist_sources",
    checks=((PRICELIST_SUITE, "ge_pricelist_prices"),),
    # The region indexes: each region a unit of its own; spot and Savings Plans land after the EC2 regions.
    fan_out=FanOut(
        reads_region_index, index_units, landed_version, sample_units, logged_units, prices_with_type_attributes
    ),
    past=PastVersions(backfilled_fetches, version_snapshots),
)
