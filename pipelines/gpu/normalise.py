"""GpuOffer -> GpuListing: canonical model, FX to USD at the fetch date, USD per GPU-hour.

FX follows the ECB reference rates: a price in currency C converts with the rate of its fetch date, or the
latest earlier one, as USD per C = (USD per EUR) / (C per EUR) on that date. A currency with no such rate is
refused: the batch does not land, and the error names the currency and the date. A rate more than
`max_rate_age_days` before the fetch date still converts, but the listing is flagged `fx_rate_stale` and the
batch reports it (the ECB feed stopped, or the FX source failed for days): an old rate is a fact to show,
not a reason to hide today's prices.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pydantic import BaseModel

from pipelines.fx.records import DEFAULT_MAX_FX_RATE_AGE_DAYS, FxRate
from pipelines.gpu.gpu_names import CanonicalGpu, canonical
from pipelines.gpu.records import GpuBatch, GpuListing, GpuOffer
from schemas.units import to_gib

CROSS_RATE_PRECISION = Decimal("1e-10")
MEMORY_PRECISION = Decimal("0.000001")


class MissingFxRate(ValueError):
    pass


@dataclass
class FxTable:
    """ECB rates by currency, each a date-sorted list, answering 'USD per unit of C on or before day d'."""

    by_currency: dict[str, list[tuple[date, Decimal]]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, rates: list[FxRate]) -> FxTable:
        table = cls()
        for rate in sorted(rates, key=lambda r: r.rate_date):
            table.by_currency[rate.currency].append((rate.rate_date, rate.units_per_eur))
        return table

    def _per_eur(self, currency: str, on: date) -> tuple[date, Decimal]:
        if currency == "EUR":
            return on, Decimal(1)
        history = self.by_currency.get(currency, [])
        index = bisect.bisect_right(history, (on, Decimal("Infinity")))
        if index == 0:
            raise MissingFxRate(f"no ECB rate for {currency} on or before {on.isoformat()}")
        return history[index - 1]

    def usd_per_unit(self, currency: str, on: date) -> tuple[Decimal, date | None]:
        """(USD per one unit of currency, the ECB rate date used); USD itself is (1, None)."""
        if currency == "USD":
            return Decimal(1), None
        usd_date, usd_per_eur = self._per_eur("USD", on)
        if currency == "EUR":
            return usd_per_eur, usd_date
        # A cross rate needs both legs from one ECB fixing: use the currency's date, and the USD rate of it.
        cur_date, cur_per_eur = self._per_eur(currency, on)
        usd_date, usd_per_eur = self._per_eur("USD", cur_date)
        if usd_date != cur_date:
            raise MissingFxRate(f"no ECB USD rate on {cur_date.isoformat()} to cross with {currency}")
        return (usd_per_eur / cur_per_eur).quantize(CROSS_RATE_PRECISION, rounding=ROUND_HALF_UP), cur_date


class StaleRate(BaseModel):
    """One old rate a batch converted with: which currency, the rate's date, its age at the fetch date."""

    currency: str
    rate_date: date
    age_days: int
    listings: int


class NormalisedBatch(BaseModel):
    source_id: str
    parser_version: str
    provider: str
    listings: list[GpuListing]
    unpriced: list[str]
    unknown_names: list[str]
    stale_rates: list[StaleRate]
    regions_read: list[str] | None = None  # see GpuBatch


def rate_is_stale(rate_date: date | None, on: date, max_rate_age_days: int) -> bool | None:
    """None when no rate was used (USD); exactly `max_rate_age_days` old is still fresh."""
    if rate_date is None:
        return None
    return (on - rate_date).days > max_rate_age_days


def memory_as_printed(offer: GpuOffer, known: CanonicalGpu | None) -> tuple[Decimal | None, str | None, bool | None]:
    """The listing's own figure and unit; else the catalog's (NVIDIA prints decimal GB), flagged as such."""
    if offer.gpu_memory_gb_printed is not None:
        printed = offer.gpu_memory_gb_printed.quantize(MEMORY_PRECISION, rounding=ROUND_HALF_UP)
        return printed, offer.gpu_memory_unit, False
    if known is not None and known.memory_gb is not None:
        return known.memory_gb, "GB", True
    return None, None, None


def listing(
    provider: str, offer: GpuOffer, fx: FxTable, on: date, max_rate_age_days: int = DEFAULT_MAX_FX_RATE_AGE_DAYS
) -> GpuListing:
    usd_per_unit, rate_date = fx.usd_per_unit(offer.currency, on)
    known = canonical(offer.gpu_name)
    printed, unit, from_catalog = memory_as_printed(offer, known)
    return GpuListing(
        provider=provider,
        listing=offer.listing,
        gpu_name=offer.gpu_name,
        gpu_model=known.model if known else None,
        gpu_variant=known.variant if known else None,
        gpu_memory_gib=to_gib(printed, unit) if printed is not None and unit is not None else None,
        gpu_memory_printed=printed,
        gpu_memory_unit=unit,
        gpu_memory_from_catalog=from_catalog,
        gpu_count=offer.gpu_count,
        price_kind=offer.price_kind,
        original_amount=offer.amount,
        original_currency=offer.currency,
        original_unit=offer.original_unit,
        price_per=offer.price_per,
        period=offer.period,
        usd_per_currency_unit=usd_per_unit,
        fx_rate_date=rate_date,
        fx_rate_stale=rate_is_stale(rate_date, on, max_rate_age_days),
        stock_status=offer.stock_status,
        region=offer.region,
        offer_count=offer.offer_count,
        **serverless_columns(offer),
    )


def serverless_columns(offer: GpuOffer) -> dict[str, Any]:
    terms = offer.serverless
    if terms is None:
        return {}
    return {
        "billing_increment_seconds": terms.increment_seconds,
        "idle_timeout_seconds": terms.idle_timeout_seconds,
        "cold_start_billed": terms.cold_start_billed,
        "billing_terms": terms.terms,
        "billing_terms_url": terms.terms_url,
    }


def stale_rates(listings: list[GpuListing], on: date) -> list[StaleRate]:
    used = Counter(
        (item.original_currency, item.fx_rate_date)
        for item in listings
        if item.fx_rate_stale and item.fx_rate_date is not None
    )
    return [
        StaleRate(currency=currency, rate_date=rate_date, age_days=(on - rate_date).days, listings=count)
        for (currency, rate_date), count in sorted(used.items())
    ]


def normalise(
    batch: GpuBatch, fx: FxTable, on: date, max_rate_age_days: int = DEFAULT_MAX_FX_RATE_AGE_DAYS
) -> NormalisedBatch:
    """Raises MissingFxRate when any offer's currency has no rate: such a batch is refused whole."""
    listings = [listing(batch.provider, offer, fx, on, max_rate_age_days) for offer in batch.offers]
    unknown = sorted({item.gpu_name for item in listings if item.gpu_model is None})
    return NormalisedBatch(
        source_id=batch.source_id,
        parser_version=batch.parser_version,
        provider=batch.provider,
        listings=listings,
        unpriced=batch.unpriced,
        unknown_names=unknown,
        stale_rates=stale_rates(listings, on),
        regions_read=batch.regions_read,
    )
