"""The `gpu` kind: provider offers, normalised (canonical names, FX to USD) into listings. A GPU adapter reads
rows; the batch around them, naming the provider and the parser version, is made here."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from types import ModuleType
from typing import TYPE_CHECKING

from pipelines.across_kinds.headline import GPU_CHEAPEST
from pipelines.errors import ValidationFailed
from pipelines.fx.landing import load_fx_rates
from pipelines.gpu.landing import CHANGES, CURRENT_PRICES, CURRENT_ROWS, GPU_LISTINGS, gpu_snapshots
from pipelines.gpu.normalise import FxTable, MissingFxRate, NormalisedBatch, StaleRate, normalise
from pipelines.gpu.records import GpuBatch, GpuRows, gpu_batch
from pipelines.gpu.suite import LISTINGS_SUITE, validate_listings_many
from pipelines.kind import REFUSED, REFUSED_MARK, History, Key, Kind, LandedSoFar, PreparedBatch, ViewAsset, ViewCheck
from pipelines.sources.file import SourceSpec

if TYPE_CHECKING:
    from datetime import datetime

    import duckdb


def _batch_of(rows: GpuRows, source: SourceSpec, adapter: ModuleType) -> GpuBatch:
    provider = source.options.get("provider") or adapter.PROVIDER  # a declarative table names its provider
    return gpu_batch(rows, source.id, adapter.PARSER_VERSION, provider)


def landed_fx(con: duckdb.DuckDBPyConnection, as_of: datetime | None) -> FxTable:
    """The ECB rates landed (known at `as_of`), which convert a batch's prices."""
    return FxTable.of(load_fx_rates(con, as_of))


def _stale_rate_warning(source: SourceSpec, on: date, stale: StaleRate) -> str:
    return (
        f"[{source.id}] {stale.currency} converted at the ECB rate of {stale.rate_date.isoformat()}, "
        f"{stale.age_days} days before the fetch date {on.isoformat()} (limit {source.fx.max_rate_age_days}): "
        f"{stale.listings} listing(s) landed with fx_rate_stale"
    )


def _prepare(batch: GpuBatch, source: SourceSpec, on: date, state: LandedSoFar) -> PreparedBatch:
    try:
        normalised = normalise(batch, state.read(landed_fx), on, source.fx.max_rate_age_days)
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


def _prices(batch: NormalisedBatch) -> dict[Key, Decimal]:
    return {(item.listing, item.price_kind.value, item.region): item.usd_per_gpu_hour for item in batch.listings}


CHEAPEST_KEY = "gpu_cheapest"
COMPARISON_KEY = "accelerator_hour_prices"
CHECK_GPU_NAMES_RECOGNISED = "gpu_names_recognised"
CHECK_FX_RATES_FRESH = "gpu_fx_rates_fresh"

UNKNOWN_GPU_NAMES = """
SELECT provider, gpu_name, count(*) AS listings FROM gpu_listings
WHERE gpu_model IS NULL GROUP BY provider, gpu_name ORDER BY provider, gpu_name
"""
STALE_FX_RATES = """
SELECT provider, original_currency AS currency, fx_rate_date, count(*) AS listings FROM gpu_listings
WHERE fx_rate_stale GROUP BY provider, original_currency, fx_rate_date ORDER BY fx_rate_date, provider, currency
"""
STALE_FX_SUMMARY = """
SELECT count(*) AS stale_listings, coalesce(strftime(min(fx_rate_date), '%Y-%m-%d'), '') AS oldest_rate_date
FROM gpu_listings WHERE fx_rate_stale
"""
COMPARISON_SUMMARY = """
SELECT source_family, count(*) AS rows, count(DISTINCT accelerator_model) AS models
FROM accelerator_hour_prices GROUP BY source_family ORDER BY source_family
"""

CHEAPEST = ViewAsset(
    CHEAPEST_KEY,
    "Cheapest in-stock on-demand USD per GPU-hour per GPU model (views gpu_listings, gpu_cheapest).",
    "SELECT count(*) FROM gpu_cheapest",
    GPU_CHEAPEST,
    checks=(
        ViewCheck(
            CHECK_GPU_NAMES_RECOGNISED,
            "Every current GPU listing maps to a canonical model; unknown names are kept and listed here, never "
            "dropped.",
            UNKNOWN_GPU_NAMES,
            "unknown_names",
        ),
        ViewCheck(
            CHECK_FX_RATES_FRESH,
            "No current GPU listing converts with an ECB rate older than the sources file's [fx] max_rate_age_days "
            "at its fetch date; such listings land flagged fx_rate_stale.",
            STALE_FX_RATES,
            "stale_rates",
            summary=STALE_FX_SUMMARY,
        ),
    ),
)
# Across kinds, but made from the GPU listings' views: it follows both kinds' view assets.
COMPARISON = ViewAsset(
    COMPARISON_KEY,
    "AWS per-accelerator-hour and GPU per-GPU-hour prices in one comparable view.",
    "SELECT count(*) FROM accelerator_hour_prices",
    COMPARISON_SUMMARY,
    preview_label="by_family",
    after=("aws_instance_prices", CHEAPEST_KEY),
)

KIND = Kind(
    "gpu",
    _prepare,
    lambda group: validate_listings_many({sid: batch.listings for sid, (_, batch) in group.items()}),
    gpu_snapshots,
    _prices,
    lambda b: len(b.listings),
    batch_of=_batch_of,
    regions_read=lambda b: b.regions_read,
    history=History((GPU_LISTINGS.name,), CURRENT_PRICES, CURRENT_ROWS, changes=CHANGES),
    reads_landed=("fx",),  # non-USD prices convert with the day's ECB rates
    asset_group="gpu_sources",
    checks=((LISTINGS_SUITE, "ge_gpu_listings"),),
    views=(CHEAPEST, COMPARISON),
)
