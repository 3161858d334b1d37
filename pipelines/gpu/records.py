"""Typed records for GPU-provider listings and FX rates.

Adapters return `GpuOffer`s exactly as the provider states them (amount, currency, per GPU or per instance,
per minute/hour/day/week/month). Normalisation (pipelines/gpu/normalise.py) turns each into a `GpuListing`
with the canonical GPU model and USD per GPU-hour, recording the FX rate it used.
"""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum

from pydantic import BaseModel, Field, computed_field, model_validator

from schemas.record import Record

FULL_PRECISION = Decimal("1e-18")


FOUR_DP = Decimal("0.0001")


class GpuPriceKind(StrEnum):
    ON_DEMAND = "on_demand"
    COMMUNITY = "community"
    SPOT = "spot"  # spot / interruptible
    RESERVED = "reserved"  # a reservation whose term the provider does not state with the price
    RESERVED_1Y = "reserved_1y"  # a 1-year reservation (Azure's reserved VM instances)
    RESERVED_3Y = "reserved_3y"
    SAVINGS_PLAN_1Y = "savings_plan_1y"  # an hourly rate for a 1-year spend commitment (Azure's savings plan)
    SAVINGS_PLAN_3Y = "savings_plan_3y"
    COMMITTED_USE_1Y = "committed_use_1y"  # Google's resource-based committed use discount, 1 year: a reservation
    COMMITTED_USE_3Y = "committed_use_3y"
    FLEXIBLE_CUD_1Y = "flexible_cud_1y"  # Google's spend-based (flexible) committed use discount: a savings plan
    FLEXIBLE_CUD_3Y = "flexible_cud_3y"
    DWS_FLEX_START = "dws_flex_start"  # Google's Dynamic Workload Scheduler, queued until capacity frees up
    DWS_CALENDAR = "dws_calendar"  # Dynamic Workload Scheduler's calendar mode: capacity booked ahead, a reservation
    SERVERLESS = "serverless"  # billed per second of a worker's life, scaling to zero (RunPod "flex")
    SERVERLESS_ACTIVE = "serverless_active"  # always-warm serverless workers, billed while they exist


SERVERLESS_KINDS = frozenset({GpuPriceKind.SERVERLESS, GpuPriceKind.SERVERLESS_ACTIVE})


class PricePer(StrEnum):
    GPU = "gpu"
    INSTANCE = "instance"  # the whole node or offer, all its GPUs


class BillingPeriod(StrEnum):
    SECOND = "second"
    MINUTE = "minute"
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    # A reservation priced for its whole term (Azure's reservation rows): the term's price, paid once or monthly.
    YEAR = "year"
    THREE_YEARS = "3 years"


HOURS_PER_YEAR = 8760  # 365 x 24: the year cloud price lists amortise a term over

# Per-period price -> per-hour price as (multiply by, divide by), kept exact: per second x 3,600, per minute x 60,
# per day / 24, per week / 168, per month / 730 (8,760 hours / 12, the convention cloud price lists use), per
# year / 8,760, per 3 years / 26,280.
PER_HOUR = {
    BillingPeriod.SECOND: (Decimal(3600), Decimal(1)),
    BillingPeriod.MINUTE: (Decimal(60), Decimal(1)),
    BillingPeriod.HOUR: (Decimal(1), Decimal(1)),
    BillingPeriod.DAY: (Decimal(1), Decimal(24)),
    BillingPeriod.WEEK: (Decimal(1), Decimal(168)),
    BillingPeriod.MONTH: (Decimal(1), Decimal(730)),
    BillingPeriod.YEAR: (Decimal(1), Decimal(HOURS_PER_YEAR)),
    BillingPeriod.THREE_YEARS: (Decimal(1), Decimal(3 * HOURS_PER_YEAR)),
}


class StockStatus(StrEnum):
    IN_STOCK = "in_stock"
    SOLD_OUT = "sold_out"
    UNKNOWN = "unknown"


class ServerlessBilling(Record):
    """How a serverless provider bills a worker's life, as it states it. None: the provider does not say."""

    increment_seconds: int = Field(ge=1)  # the minimum billed increment: each billed span rounds up to it
    idle_timeout_seconds: int | None = Field(default=None, ge=0)  # idle time billed before a worker scales down
    cold_start_billed: bool | None = None  # whether starting a worker (image, model load) is billed
    terms: str = Field(min_length=1)  # the sentences these were read from, as printed (or the sources file's note)
    terms_url: str = Field(min_length=1)  # where they are stated: the price page itself, or the doc page named


class GpuOffer(Record):
    """One priced row as the provider states it."""

    listing: str = Field(min_length=1)  # the provider's own name for the row; unique per price kind and region
    gpu_name: str = Field(min_length=1)  # as printed, e.g. "NVIDIA H100 80GB HBM3"
    gpu_count: int = Field(ge=1, le=1024)
    price_kind: GpuPriceKind
    amount: Decimal = Field(gt=0)
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    price_per: PricePer
    period: BillingPeriod
    stock_status: StockStatus = StockStatus.UNKNOWN
    region: str | None = None
    gpu_memory_gb_printed: Decimal | None = Field(default=None, gt=0)  # VRAM per GPU as printed, in gpu_memory_unit
    gpu_memory_unit: str = Field(
        default="GB", pattern=r"^(GB|GiB)$"
    )  # as printed: providers mostly print NVIDIA's decimal GB
    offer_count: int = Field(default=1, ge=1)  # marketplace offers folded into this listing
    serverless: ServerlessBilling | None = None  # required for the serverless price kinds, refused for the others

    @model_validator(mode="after")
    def _serverless_terms_match_kind(self) -> GpuOffer:
        if self.price_kind in SERVERLESS_KINDS:
            if self.serverless is None:
                raise ValueError(f"a {self.price_kind.value} price needs its billing terms (increment, idle timeout)")
            if self.period != BillingPeriod.SECOND:
                raise ValueError(f"a {self.price_kind.value} price is per second, not per {self.period.value}")
        elif self.serverless is not None:
            raise ValueError(f"serverless billing terms on a {self.price_kind.value} price")
        return self

    @property
    def original_unit(self) -> str:
        per = "GPU" if self.price_per == PricePer.GPU else "instance"
        if self.period == BillingPeriod.THREE_YEARS:
            return f"per {per} for 3 years"
        return f"per {per}-{self.period.value}"


class GpuBatch(BaseModel):
    source_id: str
    parser_version: str
    provider: str
    offers: list[GpuOffer]
    # Rows the page lists without a price ("contact sales"): reported, never landed as a price.
    unpriced: list[str] = Field(default_factory=list)
    # Parts of the page refused while the rest lands, each with why (a price table whose columns are not found).
    refused: list[str] = Field(default_factory=list)
    shape: str | None = None  # fingerprint of the table headers or record keys, for drift detection
    # The regions the answer covers when it was read region by region (Azure's, split after a failed page): the
    # source's other regions keep their last good version. None: the answer covers every region it has.
    regions_read: list[str] | None = None


class GpuRows(BaseModel):
    """What a GPU adapter reads off a page. The GPU kind makes the batch of it (gpu_batch): the source, the parser's
    version and the provider are the same for every adapter, so none of them writes that part."""

    offers: list[GpuOffer]
    unpriced: list[str] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)
    shape: str | None = None
    regions_read: list[str] | None = None  # see GpuBatch


def gpu_batch(rows: GpuRows, source_id: str, parser_version: str, provider: str) -> GpuBatch:
    return GpuBatch(
        source_id=source_id,
        parser_version=parser_version,
        provider=provider,
        offers=rows.offers,
        unpriced=rows.unpriced,
        refused=rows.refused,
        shape=rows.shape,
        regions_read=rows.regions_read,
    )


class GpuListing(Record):
    """A normalised listing: canonical model, original price kept, USD per GPU-hour derived."""

    provider: str
    listing: str
    gpu_name: str
    gpu_model: str | None  # canonical (H100, H200, B200, ...); None when the name is not recognised
    gpu_variant: str | None
    gpu_memory_gib: Decimal | None  # converted from gpu_memory_printed by gpu_memory_unit's definition
    gpu_memory_printed: Decimal | None = None
    gpu_memory_unit: str | None = Field(default=None, pattern=r"^(GB|GiB)$")
    gpu_memory_from_catalog: bool | None = None  # True: the listing printed none, the catalog's figure is used
    gpu_count: int = Field(ge=1)
    price_kind: GpuPriceKind
    original_amount: Decimal = Field(gt=0)
    original_currency: str
    original_unit: str
    price_per: PricePer
    period: BillingPeriod
    usd_per_currency_unit: Decimal = Field(gt=0)  # 1 for USD
    fx_rate_date: date | None  # None for USD
    # True when fx_rate_date is more than the allowed age before the fetch date; None for USD (no rate used).
    fx_rate_stale: bool | None
    stock_status: StockStatus
    region: str | None
    offer_count: int = Field(ge=1)
    billing_increment_seconds: int | None = None  # serverless only, from ServerlessBilling
    idle_timeout_seconds: int | None = None
    cold_start_billed: bool | None = None
    billing_terms: str | None = None
    billing_terms_url: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usd_per_gpu_second(self) -> Decimal | None:
        """Exact, for a price billed per second; None for any other period (its per-second figure bills nothing)."""
        if self.period != BillingPeriod.SECOND:
            return None
        usd = self.original_amount * self.usd_per_currency_unit
        divide = Decimal(self.gpu_count) if self.price_per == PricePer.INSTANCE else Decimal(1)
        return (usd / divide).quantize(FULL_PRECISION, rounding=ROUND_HALF_UP)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usd_per_gpu_hour(self) -> Decimal:
        multiply, divide = PER_HOUR[self.period]
        usd = self.original_amount * self.usd_per_currency_unit * multiply
        if self.price_per == PricePer.INSTANCE:
            divide *= self.gpu_count
        # One division, at the end, so the figure is exact whenever the quotient terminates.
        return (usd / divide).quantize(FULL_PRECISION, rounding=ROUND_HALF_UP)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usd_per_gpu_hour_4dp(self) -> Decimal:
        return self.usd_per_gpu_hour.quantize(FOUR_DP, rounding=ROUND_HALF_UP)
