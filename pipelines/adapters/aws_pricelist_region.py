"""One region's EC2 offer file (CSV) from AWS's price list: on-demand and reserved prices of the allowed families.

The source in the sources file names the region index; pipelines.pricelist.units turns it into one unit per
region, each with its own offer-file URL and `region_code` option, so each region lands or fails on its own.
Options: `families` (the allowlist; default every accelerator family) and `regions` (default every region); each
unit also carries `region_code` and `index_version` (the stamp its index entry names), which the file must match.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipelines.pricelist.families import DEFAULT_FAMILIES
from pipelines.pricelist.offer_csv import PARSER_VERSION, parse_offer_csv
from pipelines.pricelist.records import PriceListBatch

__all__ = ["PARSER_VERSION", "parse"]


def families(source: Any) -> tuple[str, ...]:
    return tuple(source.options.get("families", DEFAULT_FAMILIES))


def regional_options(source: Any) -> dict[str, Any]:
    """What a region unit tells its reader: its region, the allowlist and the version its index named."""
    options = source.options
    return {
        "region_code": options.get("region_code"),
        "families": families(source),
        "index_version": options.get("index_version"),
    }


def parse(body: bytes | Path, source: Any) -> PriceListBatch:
    """`body`: the offer file as fetched into memory, or the file it was streamed to."""
    return parse_offer_csv(body, source.id, **regional_options(source))
