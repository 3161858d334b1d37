"""What a `declarative_table` source's options must say (pipelines/adapters/declarative_table.py reads the page).

The adapter registry names this model (`AdapterInfo.options`), so the sources file checks a declaration when it
loads, naming the file, the source and the option, not first at parse time, without naming the GPU kind.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pipelines.gpu.records import BillingPeriod, GpuPriceKind, PricePer

Patterns = list[str] | None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Columns(_Strict):  # semantic column -> header regexes
    gpu: list[str] = Field(min_length=1)
    price: list[str] = Field(min_length=1)
    # A second price column in the same unit: the spot price (preemptible, interruptible) the page prints beside
    # the main one. A row priced there is a spot offer too; a blank or "—" there is simply not offered as spot.
    spot: Patterns = None
    memory: Patterns = None
    stock: Patterns = None
    gpu_count: Patterns = None
    region: Patterns = None
    listing: Patterns = None

    @field_validator("*")
    @classmethod
    def _regexes(cls, patterns: Patterns) -> Patterns:
        for pattern in patterns or ():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"bad regex {pattern!r}: {exc}") from exc
        return patterns


class StockValues(_Strict):
    in_stock: list[str] = []
    sold_out: list[str] = []


class Options(_Strict):
    provider: str = Field(min_length=1)
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    decimal_separator: Literal[".", ","] = "."
    price_per: PricePer
    period: BillingPeriod
    price_kind: GpuPriceKind
    gpu_count: int | None = Field(default=None, ge=1, le=1024)
    columns: Columns
    stock_values: StockValues = StockValues()
    # The page prints each GPU's memory inside its GPU cell (Crusoe's "80GB" tag), not in a column of its own.
    memory_in_gpu_cell: bool = False

    @model_validator(mode="after")
    def _one_gpu_count(self) -> Options:
        if (self.gpu_count is None) == (self.columns.gpu_count is None):
            raise ValueError("declare exactly one of gpu_count (fixed) or columns.gpu_count")
        return self
