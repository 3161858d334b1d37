"""The base of every kind's price and rate records: immutable, no unknown fields, printed text stripped."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)
