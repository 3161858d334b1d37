"""The `aws` kind: instance specifications and prices from the product and Capacity Blocks pages."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from pipelines.across_kinds.headline import HEADLINE_PRICES, VIEW_ROW_COUNT
from pipelines.aws.landing import CHANGES, CURRENT_PRICES, CURRENT_ROWS, PRICES, SPECS, aws_snapshots
from pipelines.aws.records import SourceBatch
from pipelines.aws.suite import PRICES_SUITE, SPECS_SUITE, validate_batch_many
from pipelines.kind import History, Key, Kind, LandedSoFar, PreparedBatch, ViewAsset, ViewCheck
from pipelines.sources.file import SourceSpec
from schemas.gx_runner import ValidationReport


def _prepare(batch: SourceBatch, _source: SourceSpec, _on: date, _state: LandedSoFar) -> PreparedBatch:
    return PreparedBatch(batch, list(batch.warnings), {"spec_rows": len(batch.specs), "price_rows": len(batch.prices)})


def _prices(batch: SourceBatch) -> dict[Key, Decimal]:
    return {(p.instance_type, p.price_kind.value, p.region): p.usd_per_instance_hour for p in batch.prices}


def _validate(group: dict[str, tuple[SourceSpec, Any]]) -> dict[str, list[ValidationReport]]:
    batches = {sid: batch for sid, (_, batch) in group.items()}
    return validate_batch_many(
        batches, expects_prices={sid: source.expects_prices for sid, (source, _) in group.items()}
    )


VIEWS_KEY = "aws_instance_prices"
CHECK_RATE_MATCHES_PRINTED = "capacity_block_rate_matches_printed"
CHECK_EVERY_PRICE_HAS_SPEC = "every_price_has_spec"
CHECK_PAGE_PRICE_MATCHES_A_REGION = "page_price_matches_a_region"

# The page rounds its accelerator rate to 3 decimals; a derived rate further off than that is a parse error.
RATE_MISMATCHES = """
SELECT instance_type, region, printed_usd_per_accelerator_hour, usd_per_accelerator_hour
FROM aws_instance_prices
WHERE printed_usd_per_accelerator_hour IS NOT NULL
  AND abs(printed_usd_per_accelerator_hour - usd_per_accelerator_hour) > 0.0005
"""

# Price-list rows carry their spec themselves (accelerator NULL only when the catalog does not know the type).
PRICES_WITHOUT_SPEC = """SELECT instance_type, price_kind, source_id FROM aws_instance_prices
                         WHERE accelerator IS NULL AND source_family <> 'price_list'"""

# A product-page on-demand price that no price-list region charges: one of the two sources is wrong or stale.
UNMATCHED_PAGE_PRICES = """
SELECT instance_type, page_usd_per_instance_hour, price_list_regions, price_list_min_usd_per_instance_hour,
       price_list_max_usd_per_instance_hour, page_source_id
FROM aws_price_reconciliation WHERE status = 'no matching region' ORDER BY instance_type
"""

INSTANCE_PRICES = ViewAsset(
    VIEWS_KEY,
    "Current AWS prices per instance-hour and per accelerator-hour (view aws_instance_prices).",
    VIEW_ROW_COUNT,
    HEADLINE_PRICES,
    checks=(
        ViewCheck(
            CHECK_RATE_MATCHES_PRINTED,
            "Derived accelerator rate agrees with the rate the page printed, to its rounding.",
            RATE_MISMATCHES,
            "mismatches",
        ),
        ViewCheck(
            CHECK_EVERY_PRICE_HAS_SPEC,
            "Every current price joins to the instance spec of the same source.",
            PRICES_WITHOUT_SPEC,
            "orphans",
            warn_only=False,
        ),
        ViewCheck(
            CHECK_PAGE_PRICE_MATCHES_A_REGION,
            "Every product-page on-demand price equals the price list's on-demand price in at least one region "
            "(view aws_price_reconciliation); warns otherwise.",
            UNMATCHED_PAGE_PRICES,
            "page prices matching no region",
            summary="SELECT count(*) AS unmatched FROM aws_price_reconciliation WHERE status = 'no matching region'",
        ),
    ),
)

KIND = Kind(
    "aws",
    _prepare,
    _validate,
    aws_snapshots,
    _prices,
    lambda b: len(b.specs) + len(b.prices),
    history=History((PRICES.name, SPECS.name), CURRENT_PRICES, CURRENT_ROWS, changes=CHANGES),
    asset_group="aws_sources",
    checks=((SPECS_SUITE, "ge_instance_specs"), (PRICES_SUITE, "ge_instance_prices")),
    views=(INSTANCE_PRICES,),
)
