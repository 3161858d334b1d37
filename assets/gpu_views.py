"""GPU views as downstream assets: the cheapest in-stock on-demand GPU per model, and the AWS-vs-GPU view."""

import dagster as dg

from assets.sources import WRITER_POOL, source_asset_key
from assets.views import VIEWS_KEY, preview_markdown, read_rows, warn_unless_empty
from pipelines.across_kinds.headline import GPU_CHEAPEST
from pipelines.orchestration.resources import WarehouseResource
from pipelines.sources.file import SourceSpec
from warehouse.db import connect
from warehouse.queries import rows_as_dicts

GPU_CHEAPEST_KEY = dg.AssetKey("gpu_cheapest")
COMPARISON_KEY = dg.AssetKey("accelerator_hour_prices")
CHECK_GPU_NAMES_RECOGNISED = "gpu_names_recognised"
CHECK_FX_RATES_FRESH = "gpu_fx_rates_fresh"

UNKNOWN_GPU_NAMES = """
SELECT provider, gpu_name, count(*) AS listings FROM gpu_listings
WHERE gpu_model IS NULL GROUP BY provider, gpu_name ORDER BY provider, gpu_name
"""
STALE_FX_RATES = """
SELECT provider, original_currency AS currency, fx_rate_date, count(*) AS listings FROM gpu_listings
WHERE fx_rate_stale GROUP BY provider, original_currency, fx_rate_date ORDER BY fx_rate_date, provider, currency
"""
COMPARISON_SUMMARY = """
SELECT source_family, count(*) AS rows, count(DISTINCT accelerator_model) AS models
FROM accelerator_hour_prices GROUP BY source_family ORDER BY source_family
"""


def build_gpu_view_assets(gpu_sources: list[SourceSpec]) -> list[dg.AssetsDefinition]:
    @dg.asset(
        key=GPU_CHEAPEST_KEY,
        group_name="views",
        kinds={"duckdb"},
        pool=WRITER_POOL,
        deps=[source_asset_key(s.id) for s in gpu_sources],
        description="Cheapest in-stock on-demand USD per GPU-hour per GPU model (views gpu_listings, gpu_cheapest).",
    )
    def gpu_cheapest(warehouse: WarehouseResource) -> dg.MaterializeResult[None]:
        with connect(warehouse.db_path) as con:
            rows = rows_as_dicts(con, GPU_CHEAPEST)
        return dg.MaterializeResult(
            metadata={
                "row_count": dg.MetadataValue.int(len(rows)),
                "preview": dg.MetadataValue.md(preview_markdown(rows)),
            }
        )

    @dg.asset(
        key=COMPARISON_KEY,
        group_name="views",
        kinds={"duckdb"},
        pool=WRITER_POOL,
        deps=[VIEWS_KEY, GPU_CHEAPEST_KEY],
        description="AWS per-accelerator-hour and GPU per-GPU-hour prices in one comparable view.",
    )
    def accelerator_hour_prices(warehouse: WarehouseResource) -> dg.MaterializeResult[None]:
        with connect(warehouse.db_path) as con:
            summary = rows_as_dicts(con, COMPARISON_SUMMARY)
        return dg.MaterializeResult(
            metadata={
                "row_count": dg.MetadataValue.int(sum(r["rows"] for r in summary)),
                "by_family": dg.MetadataValue.md(preview_markdown(summary)),
            }
        )

    return [gpu_cheapest, accelerator_hour_prices]


@dg.asset_check(
    asset=GPU_CHEAPEST_KEY,
    name=CHECK_GPU_NAMES_RECOGNISED,
    pool=WRITER_POOL,
    description="Every current GPU listing maps to a canonical model; unknown names are kept and "
    "listed here, never dropped.",
)
def gpu_names_recognised(warehouse: WarehouseResource) -> dg.AssetCheckResult:
    return warn_unless_empty(read_rows(warehouse, UNKNOWN_GPU_NAMES), "unknown_names")


@dg.asset_check(
    asset=GPU_CHEAPEST_KEY,
    name=CHECK_FX_RATES_FRESH,
    pool=WRITER_POOL,
    description="No current GPU listing converts with an ECB rate older than the sources file's "
    "[fx] max_rate_age_days at its fetch date; such listings land flagged fx_rate_stale.",
)
def gpu_fx_rates_fresh(warehouse: WarehouseResource) -> dg.AssetCheckResult:
    rows = read_rows(warehouse, STALE_FX_RATES)
    oldest = min((r["fx_rate_date"] for r in rows), default=None)
    return dg.AssetCheckResult(
        passed=not rows,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "stale_listings": dg.MetadataValue.int(sum(r["listings"] for r in rows)),
            "oldest_rate_date": dg.MetadataValue.text(oldest.isoformat() if oldest else ""),
            "stale_rates": dg.MetadataValue.md(preview_markdown(rows)),
        },
    )


GPU_VIEW_CHECKS = [gpu_names_recognised, gpu_fx_rates_fresh]
