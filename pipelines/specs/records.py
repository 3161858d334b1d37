"""Typed records for accelerator specifications (kind `spec`): Neuron chips, instance and UltraServer
configurations, the Neuron SDK release, launch dates and vendor claims.

Figures keep the value and unit as printed; the conversions (GiB, GB/s, TFLOPS) are computed here, once,
by each unit's definition. A compute figure carries its own `sparse` flag, so no view can take a sparse
figure for a dense one.
"""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from pipelines.specs.nvidia_records import GpuSpec
from schemas.units import BYTES_PER_UNIT, to_gib

MemoryUnit = Literal["GB", "GiB", "TB", "TiB"]
BandwidthUnit = Literal["GB/s", "GiB/s", "TB/s", "TiB/s"]
ComputeUnit = Literal["TFLOPS", "PFLOPS", "TOPS", "POPS"]
NUMBER_FORMATS = (
    "FP64",
    "FP32",
    "TF32",
    "FP16",
    "BF16",
    "FP8",
    "cFP8",
    "MXFP8",
    "MXFP6",
    "MXFP4",
    "FP6",
    "FP4",
    "INT8",
)
TERA_PER_UNIT = {"TFLOPS": Decimal(1), "PFLOPS": Decimal(1000), "TOPS": Decimal(1), "POPS": Decimal(1000)}
SIX_DP = Decimal("0.000001")


def gb_per_second(value: Decimal, unit: str) -> Decimal:
    """A printed bandwidth in decimal GB/s: 820 GiB/sec is 880.468 GB/s, 2.9 TB/sec is 2,900 GB/s."""
    per_second = BYTES_PER_UNIT[unit.removesuffix("/s")]
    return (value * per_second / BYTES_PER_UNIT["GB"]).quantize(SIX_DP, rounding=ROUND_HALF_UP)


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Compute(_Strict):
    """One number format's figure: "190 FP16/BF16/TF32 TFLOPS" becomes three of these, sharing the figure."""

    number_format: Literal[NUMBER_FORMATS]  # type: ignore[valid-type]
    label_printed: str = Field(min_length=1)  # the combined label as printed, e.g. "FP16/BF16/cFP8/TF32"
    value: Decimal = Field(gt=0)
    unit: ComputeUnit
    sparse: bool

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tera(self) -> Decimal:
        """TFLOPS (or TOPS for integer formats), whatever the printed unit."""
        return self.value * TERA_PER_UNIT[self.unit]


class ChipSpec(_Strict):
    """One accelerator chip: an AWS Neuron chip (with its NeuronCores) or a Google TPU (which has none)."""

    chip: str = Field(min_length=1)
    vendor: Literal["AWS", "Google"] = "AWS"
    neuron_cores: int | None = Field(None, ge=1, le=256)
    neuron_core_version: str | None = Field(None, pattern=r"^v\d+$")
    memory_printed: str = Field(min_length=1)
    memory_value: Decimal = Field(gt=0)
    memory_unit: MemoryUnit
    bandwidth_printed: str = Field(min_length=1)
    bandwidth_value: Decimal = Field(gt=0)
    bandwidth_unit: BandwidthUnit
    compute: list[Compute] = Field(min_length=1)
    doc_version: str | None = None

    @model_validator(mode="after")
    def _cores_for_neuron_only(self) -> ChipSpec:
        neuron = self.neuron_cores is not None and self.neuron_core_version is not None
        if neuron != (self.vendor == "AWS") or (self.neuron_cores is None) != (self.neuron_core_version is None):
            raise ValueError(f"{self.chip}: an AWS chip states its NeuronCores and version, a {self.vendor} chip none")
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def memory_gib(self) -> Decimal:
        return to_gib(self.memory_value, self.memory_unit)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def bandwidth_gb_s(self) -> Decimal:
        return gb_per_second(self.bandwidth_value, self.bandwidth_unit)


class ConfigSpec(_Strict):
    """An instance size or an UltraServer, with totals as printed."""

    configuration: str = Field(min_length=1)
    chip: str = Field(min_length=1)
    chips: int = Field(ge=1, le=100_000)
    memory_printed: str | None = None
    memory_value: Decimal | None = Field(default=None, gt=0)
    memory_unit: MemoryUnit | None = None
    bandwidth_printed: str | None = None  # total memory bandwidth as printed ("46.4 TB/s", "13,120 GiB/s")
    bandwidth_value: Decimal | None = Field(default=None, gt=0)
    bandwidth_unit: BandwidthUnit | None = None
    compute: list[Compute] = Field(default_factory=list)
    doc_version: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def memory_gib(self) -> Decimal | None:
        if self.memory_value is None or self.memory_unit is None:
            return None
        return to_gib(self.memory_value, self.memory_unit)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def bandwidth_gb_s(self) -> Decimal | None:
        if self.bandwidth_value is None or self.bandwidth_unit is None:
            return None
        return gb_per_second(self.bandwidth_value, self.bandwidth_unit)


class SdkRelease(_Strict):
    product: str = "AWS Neuron SDK"
    version: str = Field(pattern=r"^\d+\.\d+(\.\d+)?$")
    release_date: date
    date_printed: str = Field(min_length=1)  # the release page's own date, as printed
    other_dates: list[str] = Field(default_factory=list)  # every other date the page prints: provenance only


class LaunchDate(_Strict):
    family: str = Field(min_length=1)
    chip: str | None = None  # the chip the family launched with, for the generations table
    launch_date: date
    status: Literal["ga", "preview", "announced"]
    source_url: str = Field(pattern=r"^https://")
    note: str | None = None


class VendorClaim(_Strict):
    """Advertising, kept as data: never an input to a computed figure."""

    claim_text: str = Field(min_length=8)
    page_url: str = Field(min_length=1)
    page_title: str | None = None
    page_date: date | None = None
    is_claim: Literal[True] = True


class SpecBatch(_Strict):
    source_id: str
    parser_version: str
    chips: list[ChipSpec] = Field(default_factory=list)
    configs: list[ConfigSpec] = Field(default_factory=list)
    releases: list[SdkRelease] = Field(default_factory=list)
    launches: list[LaunchDate] = Field(default_factory=list)
    claims: list[VendorClaim] = Field(default_factory=list)
    gpus: list[GpuSpec] = Field(default_factory=list)  # the curated NVIDIA reference
    shape: str | None = None
    warnings: list[str] = Field(default_factory=list)  # what the parser tolerated (e.g. a ragged RST table)

    @property
    def row_count(self) -> int:
        records = (self.chips, self.configs, self.releases, self.launches, self.claims, self.gpus)
        return sum(len(r) for r in records)
