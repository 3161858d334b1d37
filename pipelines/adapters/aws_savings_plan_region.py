"""One region's Savings Plans rates (CSV) from AWS's price list: Compute and EC2 Instance plans of the allowed families.

The source names the Savings Plans region index; like the EC2 price list, each region becomes a unit of its own
(pipelines.pricelist.region_units) with `region_code` and `index_version` options. The rates name no accelerator
figures: they are priced with the landed price-list attributes of the same type, so these units refresh after the
EC2 regions. Options: `families` and `regions`, as for the EC2 price list.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipelines.adapters.aws_pricelist_region import regional_options
from pipelines.pricelist.records import PriceListBatch
from pipelines.pricelist.savings_plan_csv import PARSER_VERSION, parse_savings_plan_csv

__all__ = ["PARSER_VERSION", "parse"]


def parse(body: bytes | Path, source: Any) -> PriceListBatch:
    return parse_savings_plan_csv(body, source.id, **regional_options(source))
