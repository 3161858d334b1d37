"""The price-list gates that refuse a whole region before landing, as typed errors naming source and region.

- Exactly one on-demand row per (region_code, instance_type) after the filters (and after dropping $0 rows:
  "not offered"): a second one means a filter let a decoy through (a Windows or Dedicated SKU at another
  price), so the region is refused with every duplicate's SKU named, rather than landing whichever row came
  last. The offer parser leaves this to the gate, so a CSV region and the spot feed are refused alike.
- A publication date older than the one already landed for the same source and region is refused: AWS's
  files only move forward, so an older one is a stale mirror or cache, and landing it would roll prices back.
- An allowlisted accelerator type that neither the price list nor the curated figures give a count fails its file with
  the types named (a regional offer or Savings Plans file; a spot quote of such a type is refused on its own,
  pipelines.pricelist.spot).
All raise ValidationFailed subclasses, which the refresh path quarantines (stage "validate").
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from pipelines.errors import ValidationFailed
from pipelines.pricelist.records import PriceListBatch, PriceListKind, PriceListPrice


def _region(region_code: str | None) -> str:
    return region_code or "all regions"


class DuplicateOnDemand(ValidationFailed):
    """More than one on-demand row for a (region, instance type): the region is refused, the SKUs named."""

    def __init__(self, source_id: str, region_code: str | None, duplicates: dict[tuple[str, str], list[str]]):
        self.region_code = region_code
        self.duplicates = duplicates
        named = ", ".join(
            f"{t} in {r} ({len(skus)} rows: SKUs {', '.join(skus)})" for (r, t), skus in sorted(duplicates.items())
        )
        failure = f"[{source_id}] region {_region(region_code)} refused: more than one on-demand row for {named}"
        super().__init__(source_id, [failure])


class PublicationDateWentBack(ValidationFailed):
    """An offer file older than the one already landed for the same source and region."""

    def __init__(self, source_id: str, region_code: str | None, published: datetime, landed: datetime):
        self.region_code = region_code
        self.published = published
        self.landed = landed
        failure = (
            f"[{source_id}] region {_region(region_code)} refused: publication date {published.isoformat()} is "
            f"older than the one already landed ({landed.isoformat()})"
        )
        super().__init__(source_id, [failure])


class UnpricedTypes(ValidationFailed):
    """Accelerator types of the allowlist that no count or share settles: the source fails, naming each."""

    def __init__(self, source_id: str, region_code: str | None, unpriced: list[str]):
        self.region_code = region_code
        self.unpriced = unpriced
        failure = (
            f"[{source_id}] {_region(region_code)} refused: {len(unpriced)} allowlisted accelerator type(s) cannot be "
            f"priced per accelerator: {'; '.join(unpriced)}. Add the type to pipelines/pricelist/curated.toml (with "
            "why), or narrow the source's families option"
        )
        super().__init__(source_id, [failure])


def check_priced(batch: PriceListBatch) -> None:
    """Raise UnpricedTypes when the batch names accelerator types it could not price (never a warning)."""
    if batch.unpriced:
        raise UnpricedTypes(batch.source_id, batch.region_code, batch.unpriced)


def on_demand_duplicates(prices: list[PriceListPrice]) -> dict[tuple[str, str], list[str]]:
    """(region_code, instance_type) -> the SKUs of its on-demand rows, for every pair that has more than one."""
    skus: dict[tuple[str, str], list[str]] = defaultdict(list)
    for p in prices:
        if p.price_kind is PriceListKind.ON_DEMAND:
            skus[(p.region_code, p.instance_type)].append(p.sku or "(none)")
    return {key: sorted(found) for key, found in skus.items() if len(found) > 1}


def check_one_on_demand(batch: PriceListBatch) -> None:
    """Raise DuplicateOnDemand unless every (region, type) has at most one on-demand row."""
    duplicates = on_demand_duplicates(batch.prices)
    if duplicates:
        raise DuplicateOnDemand(batch.source_id, batch.region_code, duplicates)


def check_publication_date(batch: PriceListBatch, landed: datetime | None) -> None:
    """Raise PublicationDateWentBack when the batch's file is older than `landed` (the same date is fine: an
    unchanged file). Without either date there is nothing to compare."""
    if landed is not None and batch.publication_date is not None and batch.publication_date < landed:
        raise PublicationDateWentBack(batch.source_id, batch.region_code, batch.publication_date, landed)
