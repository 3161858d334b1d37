"""Reference data the adapters and the warehouse share: AWS location names as printed -> region codes.

In schemas/, below both: the pipeline reads the table to parse and the warehouse to land and to backfill, and the
warehouse imports nothing of the pipeline. A leaf module (json and pathlib only).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REGIONS_FILE = Path(__file__).resolve().parent / "aws_regions.json"
_REGION_CODE = re.compile(r"^[a-z]{2}(-[a-z0-9]+)+$")  # the same shape pipelines.pricelist.records.REGION_CODE accepts


@dataclass(frozen=True)
class AwsRegion:
    region_code: str
    location: str  # the price list's spelling
    aliases: tuple[str, ...]  # other spellings seen in print
    type: str  # AWS Region | AWS Local Zone


@cache
def aws_regions() -> tuple[AwsRegion, ...]:
    """Every region in the reference file; raises ValueError if a code is malformed or a name maps twice."""
    raw = json.loads(REGIONS_FILE.read_text(encoding="utf-8"))["regions"]
    regions = tuple(AwsRegion(r["region_code"], r["location"], tuple(r["aliases"]), r["type"]) for r in raw)
    seen: dict[str, str] = {}
    for region in regions:
        if not _REGION_CODE.match(region.region_code):
            raise ValueError(f"{REGIONS_FILE.name}: malformed region code {region.region_code!r}")
        for name in (region.location, *region.aliases):
            if seen.setdefault(name, region.region_code) != region.region_code:
                raise ValueError(f"{REGIONS_FILE.name}: {name!r} names both {seen[name]} and {region.region_code}")
    return regions


@cache
def location_names() -> dict[str, str]:
    """Every printed spelling (location and aliases) -> region code."""
    return {name: r.region_code for r in aws_regions() for name in (r.location, *r.aliases)}


def region_code_for(location: str | None) -> str | None:
    """The region code of a location name as printed ("US East (Ohio)" -> "us-east-2"); None when the name is
    missing or unknown: a region is never guessed."""
    if location is None:
        return None
    return location_names().get(" ".join(location.split()))
