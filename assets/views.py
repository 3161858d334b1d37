"""The public views as a downstream asset, with checks on what they publish.

The views are plain SQL over the history tables (created with the schema), so they are current the moment a
source lands (`warehouse.db.connect` applies the schema, views included, only when the SQL files change). This
asset counts the view's rows and records a preview for the Dagster UI.
"""

from typing import Any

import dagster as dg

from assets.sources import WRITER_POOL, source_asset_key
from pipelines.across_kinds.headline import HEADLINE_PRICES, VIEW_ROW_COUNT
from pipelines.orchestration.resources import WarehouseResource
from pipelines.sources.file import SourceSpec
from warehouse.db import connect
from warehouse.queries import one_row, rows_as_dicts

VIEWS_KEY = dg.AssetKey("aws_instance_prices")
VIEWS_GROUP = "views"
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


def read_rows(warehouse: WarehouseResource, query: str) -> list[dict[str, Any]]:
    """A check's query, read-only: checks only look."""
    with connect(warehouse.db_path, read_only=True) as con:
        return rows_as_dicts(con, query)


def preview_markdown(rows: list[dict[str, Any]], limit: int = 30) -> str:
    if not rows:
        return "(no rows)"
    names = list(rows[0])
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines += ["| " + " | ".join("" if r[n] is None else str(r[n]) for n in names) + " |" for r in rows[:limit]]
    return "\n".join(lines)


def warn_unless_empty(rows: list[dict[str, Any]], label: str, **metadata: Any) -> dg.AssetCheckResult:
    """A WARN check's result: passed when its query found nothing, else the rows found as a markdown table."""
    return dg.AssetCheckResult(
        passed=not rows,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={**metadata, label: dg.MetadataValue.md(preview_markdown(rows))},
    )


def build_views_asset(sources: list[SourceSpec]) -> dg.AssetsDefinition:
    @dg.asset(
        key=VIEWS_KEY,
        group_name=VIEWS_GROUP,
        deps=[source_asset_key(s.id) for s in sources],
        kinds={"duckdb"},
        pool=WRITER_POOL,
        description="Current AWS prices per instance-hour and per accelerator-hour (view aws_instance_prices).",
    )
    def aws_instance_prices(warehouse: WarehouseResource) -> dg.MaterializeResult[None]:
        with connect(warehouse.db_path) as con:  # the views already exist: connect() applied the schema
            (count,) = one_row(con, VIEW_ROW_COUNT)
            headline = rows_as_dicts(con, HEADLINE_PRICES)
        return dg.MaterializeResult(
            metadata={
                "row_count": dg.MetadataValue.int(count),
                "preview": dg.MetadataValue.md(preview_markdown(headline)),
            }
        )

    return aws_instance_prices


# Checks read the file, so they queue in the writers' pool too: DuckDB refuses a reader while a writer holds it.
@dg.asset_check(
    asset=VIEWS_KEY,
    name=CHECK_RATE_MATCHES_PRINTED,
    pool=WRITER_POOL,
    description="Derived accelerator rate agrees with the rate the page printed, to its rounding.",
)
def capacity_block_rate_matches_printed(warehouse: WarehouseResource) -> dg.AssetCheckResult:
    return warn_unless_empty(read_rows(warehouse, RATE_MISMATCHES), "mismatches")


@dg.asset_check(
    asset=VIEWS_KEY,
    name=CHECK_EVERY_PRICE_HAS_SPEC,
    pool=WRITER_POOL,
    description="Every current price joins to the instance spec of the same source.",
)
def every_price_has_spec(warehouse: WarehouseResource) -> dg.AssetCheckResult:
    rows = read_rows(warehouse, PRICES_WITHOUT_SPEC)
    return dg.AssetCheckResult(passed=not rows, metadata={"orphans": dg.MetadataValue.md(preview_markdown(rows))})


@dg.asset_check(
    asset=VIEWS_KEY,
    name=CHECK_PAGE_PRICE_MATCHES_A_REGION,
    pool=WRITER_POOL,
    description="Every product-page on-demand price equals the price list's on-demand price in at least one region "
    "(view aws_price_reconciliation); warns otherwise.",
)
def page_price_matches_a_region(warehouse: WarehouseResource) -> dg.AssetCheckResult:
    rows = read_rows(warehouse, UNMATCHED_PAGE_PRICES)
    return warn_unless_empty(rows, "page prices matching no region", unmatched=dg.MetadataValue.int(len(rows)))


VIEW_CHECKS = [capacity_block_rate_matches_printed, every_price_has_spec, page_price_matches_a_region]
