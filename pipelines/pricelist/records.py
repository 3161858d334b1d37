"""Typed records for AWS's price-list files (the Bulk API regional offer files) and the public spot feed.

One `PriceListPrice` is one price of one instance type in one region: on-demand, reserved (term, purchase
option and class) or spot (indicative). Figures stay as printed (hourly and upfront parts, 10 decimals);
the effective hourly rate and the per-accelerator figures are derived here, once, exactly. Capacity Block
rows of the price list carry only an OS fee and are never records of this type: the Capacity Blocks page
stays their source.
"""

from __future__ import annotations

from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum

from pydantic import BaseModel, Field, computed_field, model_validator

from pipelines.aws.records import family_of
from schemas.record import Record
from schemas.units import FULL_PRECISION, gib_of, half_up_4dp, per_accelerator

HOURS_PER_YEAR = 8760  # 365 x 24: AWS's own convention for amortising an upfront fee

# An EC2 type (inf2.xlarge), or a SageMaker one: the EC2 type's name after `ml.` (ml.inf2.xlarge).
INSTANCE_TYPE = r"^(?:ml\.)?[a-z][a-z0-9-]*\.[a-z0-9-]+$"
SAGEMAKER_PREFIX = "ml."
REGION_CODE = r"^[a-z]{2}(-[a-z0-9]+)+$"  # us-east-2, ap-northeast-1, us-west-2-lax-1


class PriceListKind(StrEnum):
    ON_DEMAND = "on_demand"
    RESERVED = "reserved"
    SPOT = "spot"
    # Savings Plans: a commitment of dollars per hour for 1 or 3 years, paid No, Partial or All Upfront. A Compute
    # plan's rate applies to any family and region; an EC2 Instance plan's to one family in one region.
    COMPUTE_SAVINGS_PLAN = "compute_savings_plan"
    EC2_INSTANCE_SAVINGS_PLAN = "ec2_instance_savings_plan"
    # Amazon SageMaker on demand, per ml. instance-hour: a real-time inference endpoint, or a training job.
    SAGEMAKER_HOSTING = "sagemaker_hosting"
    SAGEMAKER_TRAINING = "sagemaker_training"


SAVINGS_PLANS = frozenset({PriceListKind.COMPUTE_SAVINGS_PLAN, PriceListKind.EC2_INSTANCE_SAVINGS_PLAN})
SAGEMAKER = frozenset({PriceListKind.SAGEMAKER_HOSTING, PriceListKind.SAGEMAKER_TRAINING})
# Kinds whose rows stand alone: one that cannot be priced is refused by itself while the rest of its file lands.
PRICED_ROW_BY_ROW = frozenset({PriceListKind.SPOT, *SAGEMAKER})


def ec2_type(instance_type: str) -> str:
    """The EC2 type a SageMaker ml. type runs on (ml.inf2.xlarge -> inf2.xlarge); an EC2 type as it is."""
    return instance_type.removeprefix(SAGEMAKER_PREFIX)


class PurchaseOption(StrEnum):
    NO_UPFRONT = "No Upfront"
    PARTIAL_UPFRONT = "Partial Upfront"
    ALL_UPFRONT = "All Upfront"


class OfferingClass(StrEnum):
    STANDARD = "standard"
    CONVERTIBLE = "convertible"


class CountBasis(StrEnum):
    CATALOG = "catalog"  # ratecard's curated figures, curated.toml (the denominator whenever they know the type)
    PRICE_LIST = "price_list"  # the price list's `gpu` attribute, for a type the curated figures do not know


class MemoryBasis(StrEnum):
    PRICE_LIST = "price_list"  # the price list's `gpuMemory`, as printed
    CATALOG = "catalog"


class PriceListPrice(Record):
    """One price of one instance type in one region, per whole instance-hour, excluding tax."""

    region_code: str = Field(pattern=REGION_CODE)
    location: str | None = None  # as printed ("US East (Ohio)"); the spot feed prints none
    instance_type: str = Field(pattern=INSTANCE_TYPE)
    price_kind: PriceListKind
    lease_years: int | None = Field(default=None, ge=1, le=3)
    purchase_option: PurchaseOption | None = None
    offering_class: OfferingClass | None = None
    # As printed: the Hrs dimension (0 for All Upfront) and the Quantity "Upfront Fee" dimension.
    hourly_usd: Decimal = Field(ge=0, max_digits=24, decimal_places=10)
    upfront_usd: Decimal | None = Field(default=None, ge=0, max_digits=24, decimal_places=10)
    accelerator: str | None = None  # chip or GPU model, from the curated figures
    accelerator_count: int = Field(ge=1, le=1024)
    # A fractional GPU (g6f): the instance's share of its one GPU; per-accelerator figures divide by it, so they
    # price a whole GPU-hour at this rate.
    accelerator_share: Decimal | None = Field(default=None, gt=0, lt=1, max_digits=7, decimal_places=6)
    accelerator_count_basis: CountBasis
    price_list_gpu: str | None = None  # the `GPU` attribute as printed ("16", "0.125")
    accelerator_memory_printed: str | None = None  # `gpuMemory` as printed ("1128 GB HBM3")
    accelerator_memory_value: Decimal | None = Field(default=None, gt=0)
    accelerator_memory_unit: str | None = None
    accelerator_memory_basis: MemoryBasis | None = None
    indicative: bool = False  # spot: an undocumented feed, one price per region, not a quote
    sku: str | None = None
    rate_code: str | None = None
    offer_version: str | None = None  # the offer file's version stamp (20260901000000)
    publication_date: datetime | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def family(self) -> str:
        return family_of(ec2_type(self.instance_type))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def effective_usd_per_instance_hour(self) -> Decimal:
        """hourly + upfront / (years x 8,760): the reserved rate spread over every hour of its term."""
        if self.lease_years is None or not self.upfront_usd:
            return self.hourly_usd
        hours = Decimal(self.lease_years * HOURS_PER_YEAR)
        return (self.hourly_usd + self.upfront_usd / hours).quantize(FULL_PRECISION, rounding=ROUND_HALF_UP)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usd_per_accelerator_hour(self) -> Decimal:
        if self.accelerator_share is not None:
            share = self.effective_usd_per_instance_hour / self.accelerator_share
            return share.quantize(FULL_PRECISION, rounding=ROUND_HALF_UP)
        return per_accelerator(self.effective_usd_per_instance_hour, self.accelerator_count)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usd_per_accelerator_hour_4dp(self) -> Decimal:
        return half_up_4dp(self.usd_per_accelerator_hour)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def accelerator_memory_gib(self) -> Decimal | None:
        return gib_of(self.accelerator_memory_value, self.accelerator_memory_unit)

    @model_validator(mode="after")
    def _terms_fit_the_kind(self) -> PriceListPrice:
        reserved_terms = (self.lease_years, self.purchase_option, self.offering_class)
        if self.price_kind is PriceListKind.RESERVED:
            if None in reserved_terms:
                raise ValueError("a reserved price needs lease_years, purchase_option and offering_class")
        elif self.price_kind in SAVINGS_PLANS:
            # The plan's rate per hour of use; its upfront part prepays the commitment, not this instance.
            if None in reserved_terms[:2] or self.offering_class is not None or self.upfront_usd is not None:
                raise ValueError("a Savings Plan rate needs lease_years and purchase_option, and has no class or fee")
        elif any(term is not None for term in reserved_terms) or self.upfront_usd is not None:
            raise ValueError(f"a {self.price_kind.value} price has no lease, purchase option, class or upfront fee")
        if (self.price_kind in SAGEMAKER) != self.instance_type.startswith(SAGEMAKER_PREFIX):
            # An ml. type is priced by SageMaker only, and a SageMaker price names its ml. type: never an EC2 cell.
            raise ValueError(
                f"a {self.price_kind.value} price of {self.instance_type}: SageMaker kinds go with ml. types"
            )
        if self.effective_usd_per_instance_hour <= 0:
            raise ValueError("a price of 0 means not offered: it is no row")
        if (self.accelerator_memory_value is None) != (self.accelerator_memory_unit is None):
            raise ValueError("accelerator memory needs both a value and a unit")
        if self.accelerator_share is not None and self.accelerator_count != 1:
            raise ValueError("a share of one GPU goes with an accelerator count of 1")
        return self


class InstanceTypeAttributes(Record):
    """What one regional offer file says of one accelerator instance type, and the figures ratecard derives from
    it (the same rules as its prices): the types as the data describes them."""

    region_code: str = Field(pattern=REGION_CODE)
    instance_type: str = Field(pattern=INSTANCE_TYPE)
    price_list_gpu: str | None = None  # `GPU` as printed
    price_list_gpu_memory: str | None = None  # `GPU Memory` as printed
    accelerator: str | None = None
    accelerator_count: int = Field(ge=1, le=1024)
    accelerator_share: Decimal | None = Field(default=None, gt=0, lt=1, max_digits=7, decimal_places=6)
    accelerator_count_basis: CountBasis
    accelerator_memory_value: Decimal | None = Field(default=None, gt=0)
    accelerator_memory_unit: str | None = None
    accelerator_memory_basis: MemoryBasis | None = None
    curated_why: str | None = None  # why the curated figures correct this type, when it does

    @computed_field  # type: ignore[prop-decorator]
    @property
    def family(self) -> str:
        return family_of(ec2_type(self.instance_type))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def accelerator_memory_gib(self) -> Decimal | None:
        return gib_of(self.accelerator_memory_value, self.accelerator_memory_unit)


class PendingQuote(Record):
    """A price from a feed that names no accelerator figures (the spot feed, a Savings Plans rate file): priced once
    the price list's attributes of the same type are known (pipelines/pricelist/kind.py); else a spot quote is refused
    on its own and a Savings Plans rate fails its region's file, naming the type."""

    region_code: str = Field(pattern=REGION_CODE)
    instance_type: str = Field(pattern=INSTANCE_TYPE)
    hourly_usd: Decimal = Field(gt=0, max_digits=24, decimal_places=10)
    price_kind: PriceListKind = PriceListKind.SPOT
    lease_years: int | None = Field(default=None, ge=1, le=3)
    purchase_option: PurchaseOption | None = None
    location: str | None = None
    sku: str | None = None
    rate_code: str | None = None

    @property
    def printed_gpu(self) -> tuple[str | None, str | None]:
        """The `GPU` and `GPU Memory` the quote's own row prints: none, for a feed that names no accelerator figures."""
        return None, None


class SageMakerQuote(PendingQuote):
    """A SageMaker price, with its own row's `GPU` and `GPU Memory` as printed: the figures it is priced with when no
    EC2 type of the same name (without `ml.`) is landed."""

    price_list_gpu: str | None = None
    price_list_gpu_memory: str | None = None

    @property
    def printed_gpu(self) -> tuple[str | None, str | None]:
        return self.price_list_gpu, self.price_list_gpu_memory


class RefusedRow(Record):
    """One row of a feed refused on its own (the spot feed, a SageMaker price: each stands alone), with why: the rest
    of the feed lands, and the row's last landed version, if any, stays current."""

    region_code: str
    instance_type: str
    price_kind: PriceListKind = PriceListKind.SPOT
    reason: str

    def __str__(self) -> str:
        return f"{self.price_kind.value.replace('_', ' ')} {self.region_code} {self.instance_type}: {self.reason}"


class PriceListBatch(BaseModel):
    """Everything one regional offer file (or one spot feed) yields."""

    source_id: str
    parser_version: str
    region_code: str | None = None  # the offer file's region; None for the spot feed (every region)
    offer_version: str | None = None
    publication_date: datetime | None = None
    prices: list[PriceListPrice]
    # Accelerator types as the offer file describes them (regional files only).
    types: list[InstanceTypeAttributes] = Field(default_factory=list)
    # Prices waiting for their type's price-list attributes (the spot feed, Savings Plans rates).
    pending: list[PendingQuote] = Field(default_factory=list)
    # Accelerator types that cannot be priced ("type: why"): the source fails naming them.
    unpriced: list[str] = Field(default_factory=list)
    # Rows refused one by one (a spot price that is no price, or whose type cannot be priced): the rest lands.
    refused: list[RefusedRow] = Field(default_factory=list)
    # Disagreements worth a look that do not stop landing, e.g. the price list's `gpu` count beside the curated one.
    warnings: list[str] = Field(default_factory=list)
    shape: str | None = None  # fingerprint of the header names read, for the shape-drift rule
