"""ECB reference rates as the FX adapter returns them (kind `fx`), and how old a rate may be before a conversion
with it is flagged stale."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pydantic import BaseModel, Field

from schemas.record import Record

# A rate more than this many days older than the fetch date marks a conversion stale (sources file: [fx]).
DEFAULT_MAX_FX_RATE_AGE_DAYS = 7


class FxRate(Record):
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    rate_date: date
    units_per_eur: Decimal = Field(gt=0)  # ECB reference: 1 EUR = this many units of `currency`


class FxBatch(BaseModel):
    source_id: str
    parser_version: str
    rates: list[FxRate]
    shape: str | None = None
