"""A price-list region index as units: each region it names becomes a source of its own.

The sources file names a region index (adapters aws_pricelist_region, aws_savings_plan_region and
aws_sagemaker_region). Every region in it (or in the `regions` option) becomes a unit: a SourceSpec with id
`<source>_<region with underscores>`, URL its offer file, and option `region_code`. The generic refresh
(pipelines.refresh.fan_out) fetches, checks, quarantines or lands each unit like any other source, and skips a region
whose version stamp is the one landed.
The kind hands these to the refresh as its `FanOut` (pipelines/pricelist/kind.py).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import duckdb

from pipelines.pricelist.landing import landed_publication
from pipelines.pricelist.records import REGION_CODE
from pipelines.pricelist.region_index import RegionOffer, parse_region_index
from pipelines.sources.file import SourceSpec, sample_path
from warehouse.binding import execute

REGION_INDEX_ADAPTERS = frozenset({"aws_pricelist_region", "aws_savings_plan_region", "aws_sagemaker_region"})
# Feeds whose prices take their accelerator figures from the landed price-list types: they land after the EC2
# regions (the spot feed, and each region of the Savings Plans rates and of the SageMaker prices).
TYPE_ATTRIBUTE_ADAPTERS = frozenset({"aws_spot_feed", "aws_savings_plan_region", "aws_sagemaker_region"})

# Every unit of a source that has a fetch in the log: `<source id>_<region with underscores>`.
LOGGED_UNITS = """
SELECT source_id, arg_max(url, fetch_id) AS url FROM fetch_log
WHERE starts_with(source_id, $prefix) AND sha256 IS NOT NULL
GROUP BY source_id ORDER BY source_id
"""


def reads_region_index(source: SourceSpec) -> bool:
    return source.adapter in REGION_INDEX_ADAPTERS and "region_code" not in source.options


def prices_with_type_attributes(source: SourceSpec) -> bool:
    """A feed whose prices take their accelerator figures from the landed price-list types (spot, Savings Plans,
    SageMaker)."""
    return source.adapter in TYPE_ATTRIBUTE_ADAPTERS


def unit_id(source_id: str, region_code: str) -> str:
    """us-east-1 -> <source>_us_east_1 (region codes hold no underscore, so the region can be read back)."""
    return f"{source_id}_{region_code.replace('-', '_')}"


def region_unit(source: SourceSpec, offer: RegionOffer) -> SourceSpec:
    data = source.model_dump()
    data |= {
        "id": unit_id(source.id, offer.region_code),
        "url": offer.csv_url,
        "title": f"{source.title} ({offer.region_code})",
        "sample": str(PurePosixPath(source.sample).parent / f"{offer.region_code}.csv"),  # the region's sample
        # The stamp the index names, which the file must print (a replay from the archive names none).
        "options": {**source.options, "region_code": offer.region_code}
        | ({"index_version": offer.version} if offer.version else {}),
    }
    return SourceSpec.model_validate(data)


def index_units(body: bytes, source: SourceSpec, base_url: str) -> list[tuple[SourceSpec, str]]:
    """Each region of a fetched index (those of the `regions` option, if set) as a unit, with its version stamp;
    raises ParseError naming the source."""
    index = parse_region_index(body, source.id, base_url, only=source.options.get("regions"))
    return [(region_unit(source, offer), offer.version) for offer in index.regions]


def landed_version(con: duckdb.DuckDBPyConnection, unit: SourceSpec) -> str | None:
    """The offer version landed last for the unit's region, if any."""
    landed = landed_publication(con, unit.id, unit.options["region_code"])
    return None if landed is None else landed[1]


def sample_units(source: SourceSpec) -> list[SourceSpec]:
    """One unit per region the bundled sample index names, each with its region's sample file."""
    index = parse_region_index(sample_path(source).read_bytes(), source.id, "http://127.0.0.1/")
    return [region_unit(source, offer) for offer in index.regions]


def logged_units(con: duckdb.DuckDBPyConnection, source: SourceSpec) -> list[SourceSpec]:
    """The region units of a price-list source that fetched a body (what `ratecard reparse` replays)."""
    units = []
    for unit, url in execute(con, LOGGED_UNITS, {"prefix": f"{source.id}_"}).fetchall():
        region = unit.removeprefix(f"{source.id}_").replace("_", "-")
        if re.fullmatch(REGION_CODE, region):
            units.append(region_unit(source, RegionOffer(region, url, "")))
    return units
