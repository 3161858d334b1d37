"""AWS's public spot feed: one indicative Linux price per region and type, every region in one batch.

Option: `families` (the allowlist; default every accelerator family).
"""

from __future__ import annotations

from typing import Any

from pipelines.adapters.aws_pricelist_region import families
from pipelines.pricelist.records import PriceListBatch
from pipelines.pricelist.spot import PARSER_VERSION, parse_spot

__all__ = ["PARSER_VERSION", "parse"]


def parse(body: bytes, source: Any) -> PriceListBatch:
    return parse_spot(body, source.id, families=families(source))
