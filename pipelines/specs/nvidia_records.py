"""Typed records for the curated NVIDIA reference (pipelines/reference/nvidia_gpus.json).

Each figure carries its own source URL and the date it was read from that source. A compute figure says
whether it is dense or sparse: NVIDIA pages print some figures only with sparsity, and ratecard stores the dense
figure (noting how it was derived) and keeps a printed sparse figure flagged, never usable as dense.
"""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from schemas.units import BYTES_PER_UNIT, to_gib

# NVIDIA's formats as ratecard names them (a subset of records.NUMBER_FORMATS, which imports this module).
GpuFormat = Literal["FP64", "FP32", "TF32", "FP16", "BF16", "FP8", "FP6", "FP4", "INT8"]
TERA_PER_UNIT = {"TFLOPS": Decimal(1), "PFLOPS": Decimal(1000), "TOPS": Decimal(1)}
SIX_DP = Decimal("0.000001")

UNITS = {
    "memory": {"GB", "GiB", "TB"},
    "bandwidth": {"GB/s", "GiB/s", "TB/s"},
    "compute": {"TFLOPS", "PFLOPS", "TOPS"},
}
NORMALISED_UNIT = {"memory": "GiB", "bandwidth": "GB/s", "compute": "TFLOPS"}


class GpuFigure(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    figure: Literal["memory", "bandwidth", "compute"]
    number_format: GpuFormat | None = None
    sparse: bool | None = None  # compute only: True for a with-sparsity figure
    printed: str = Field(min_length=1)  # as the source prints it, footnote marks included
    value: Decimal = Field(gt=0)
    unit: str
    source_url: str = Field(pattern=r"^https://")
    source_date: date  # the day the figure was read from source_url
    note: str | None = None  # how a dense figure was derived from a printed sparse one, caveats

    @model_validator(mode="after")
    def _consistent(self) -> GpuFigure:
        if self.unit not in UNITS[self.figure]:
            raise ValueError(
                f"{self.figure} figure {self.printed!r}: unit {self.unit!r} is not one of {UNITS[self.figure]}"
            )
        is_compute = self.figure == "compute"
        if is_compute != (self.number_format is not None) or is_compute != (self.sparse is not None):
            raise ValueError(f"{self.figure} figure {self.printed!r}: number_format and sparse go with compute only")
        return self

    @property
    def key(self) -> str:
        """memory, bandwidth, or e.g. 'FP8 dense' / 'FP8 sparse'."""
        if self.figure != "compute":
            return self.figure
        return f"{self.number_format} {'sparse' if self.sparse else 'dense'}"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def normalised(self) -> Decimal:
        """GiB for memory, decimal GB/s for bandwidth, TFLOPS for compute: each by its unit's definition."""
        if self.figure == "memory":
            return to_gib(self.value, self.unit)
        if self.figure == "bandwidth":
            per_second = BYTES_PER_UNIT[self.unit.removesuffix("/s")]
            return (self.value * per_second / BYTES_PER_UNIT["GB"]).quantize(SIX_DP, rounding=ROUND_HALF_UP)
        return self.value * TERA_PER_UNIT[self.unit]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def normalised_unit(self) -> str:
        return NORMALISED_UNIT[self.figure]


class GpuSpec(BaseModel):
    """One NVIDIA GPU model as ratecard's canonical catalog names it (pipelines/gpu/gpu_names.py)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gpu: str = Field(min_length=1)  # e.g. "H100 SXM", "A100 SXM 80GB"
    gpu_model: str = Field(min_length=1)  # canonical model: joins gpu_listings.gpu_model
    gpu_variant: str | None = None  # canonical variant: joins gpu_listings.gpu_variant
    aws_accelerator: str | None = None  # the accelerator name AWS rows carry for this GPU
    aws_memory_gb: Decimal | None = Field(default=None, gt=0)  # per accelerator, when the AWS name is ambiguous
    figures: list[GpuFigure] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_of_each(self) -> GpuSpec:
        keys = [f.key for f in self.figures]
        doubled = sorted({k for k in keys if keys.count(k) > 1})
        if doubled:
            raise ValueError(f"{self.gpu}: figure given twice: {', '.join(doubled)}")
        if "memory" not in keys:
            raise ValueError(f"{self.gpu}: no memory figure")
        return self
