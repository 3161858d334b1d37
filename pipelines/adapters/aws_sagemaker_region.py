"""One region's Amazon SageMaker prices (CSV) from AWS's price list: ml. accelerator instances, hosting and training.

The source names the AmazonSageMaker region index; like the EC2 price list, each region becomes a unit of its own
(pipelines.pricelist.region_units) with `region_code` and `index_version` options. Kept: on-demand prices of the
Hosting (real-time inference endpoints, price kind `sagemaker_hosting`) and Training (training jobs,
`sagemaker_training`) components of `ml.` types whose EC2 family is allowlisted (ml.inf2.*, ml.trn1.*, ml.trn2.*,
ml.p*, ml.g*), each keyed by the ml. type itself, so a SageMaker price never stands in for an EC2 one. Left out on
purpose: notebooks, processing and batch transform jobs, and every other component (an unknown one is counted and
named in the batch's warnings), and every type outside the accelerator families (ml.m5.large). The prices take their
accelerator figures from the EC2 types of the same name landed by the EC2 price list, so these units refresh after
the EC2 regions. Options: `families` and `regions`, as for the EC2 price list.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipelines.adapters.aws_pricelist_region import regional_options
from pipelines.pricelist.records import PriceListBatch
from pipelines.pricelist.sagemaker_csv import PARSER_VERSION, parse_sagemaker_csv

__all__ = ["PARSER_VERSION", "parse"]


def parse(body: bytes | Path, source: Any) -> PriceListBatch:
    return parse_sagemaker_csv(body, source.id, **regional_options(source))
