"""Typed records every AWS page adapter returns (kind `aws`); pydantic validates each one before a batch is formed.

Money is Decimal end to end. Derived figures (per-accelerator-hour, GiB) are computed here, once, so the
warehouse stores exactly what the views publish.
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

from pydantic import BaseModel, Field, computed_field, model_validator

from schemas.record import Record
from schemas.units import BYTES_PER_UNIT, gib_of, half_up_4dp, per_accelerator


class PriceKind(StrEnum):
    ON_DEMAND = "on_demand"
    RESERVED_1Y = "reserved_1y"
    RESERVED_3Y = "reserved_3y"
    CAPACITY_BLOCK = "capacity_block"


def family_of(instance_type: str) -> str:
    """The instance family: the part of the type before the dot (p5, trn1n, g6e)."""
    return instance_type.split(".", 1)[0]


class InstanceSpec(Record):
    """One instance size as its source page describes it."""

    instance_type: str = Field(pattern=r"^[a-z][a-z0-9-]*\.[a-z0-9-]+$")
    accelerator: str = Field(min_length=1)
    accelerator_count: int = Field(ge=1, le=1024)
    # Accelerator (device) memory for the whole instance, never host RAM.
    accelerator_memory_value: Decimal | None = Field(default=None, gt=0)
    accelerator_memory_unit: str | None = None
    accelerator_memory_derived: bool = False
    accelerator_memory_basis: str | None = None
    vcpus: int | None = Field(default=None, ge=1)
    host_memory_gib: Decimal | None = Field(default=None, gt=0)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def family(self) -> str:
        return family_of(self.instance_type)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def accelerator_memory_gib(self) -> Decimal | None:
        return gib_of(self.accelerator_memory_value, self.accelerator_memory_unit)

    @model_validator(mode="after")
    def _memory_is_whole(self) -> InstanceSpec:
        has_value = self.accelerator_memory_value is not None
        if has_value != (self.accelerator_memory_unit is not None):
            raise ValueError("accelerator memory needs both a value and a unit")
        if self.accelerator_memory_unit is not None and self.accelerator_memory_unit not in BYTES_PER_UNIT:
            raise ValueError(f"unknown memory unit {self.accelerator_memory_unit!r}")
        if self.accelerator_memory_derived and not self.accelerator_memory_basis:
            raise ValueError("a derived accelerator memory figure must say how it was derived")
        return self


class InstancePrice(Record):
    """One printed price: USD per whole instance-hour, of one kind, in one region (or none stated)."""

    instance_type: str = Field(pattern=r"^[a-z][a-z0-9-]*\.[a-z0-9-]+$")
    price_kind: PriceKind
    usd_per_instance_hour: Decimal = Field(gt=0, max_digits=18, decimal_places=6)
    accelerator_count: int = Field(ge=1, le=1024)
    region: str | None = None
    # The accelerator rate exactly as the page printed it (Capacity Blocks round it to 3 decimals).
    printed_usd_per_accelerator_hour: Decimal | None = Field(default=None, gt=0)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def region_stated(self) -> bool:
        return self.region is not None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usd_per_accelerator_hour(self) -> Decimal:
        return per_accelerator(self.usd_per_instance_hour, self.accelerator_count)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def usd_per_accelerator_hour_4dp(self) -> Decimal:
        return half_up_4dp(self.usd_per_accelerator_hour)


class SourceBatch(BaseModel):
    """Everything one fetch of one source yields."""

    source_id: str
    parser_version: str
    specs: list[InstanceSpec]
    prices: list[InstancePrice]
    shape: str | None = None  # fingerprint of the source table's headers, for drift detection
    warnings: list[str] = []  # what the parser tolerated and did not read, named (an UltraServer in a capture)
