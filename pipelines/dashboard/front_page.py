"""The front page: the articles' two headline tables first, then every current offer (`accelerator_offers`) under
filters that the page keeps in its URL.

Figures are text from SQL: per-accelerator and per-instance prices at 4 places (half up, never `0E-10`), and the
headline's instance price as printed (trimmed, never fewer than cents). A day is 24 hours and a month 730 (AWS's
month), multiplied in DECIMAL before rounding.
"""

from __future__ import annotations

from pipelines.across_kinds.headline import GPU_CHEAPEST, HEADLINE_PRICES
from pipelines.dashboard.figures import as_printed, four_places, trimmed
from pipelines.dashboard.filters import HOURS

# (a) AWS accelerators per accelerator-hour, on-demand first, then Capacity Blocks.
HEADLINE_AWS = f"""
SELECT instance_type AS "instance", accelerator, CAST(accels AS VARCHAR) AS accels, price_kind AS "price kind",
       region, {as_printed("usd_per_instance_hour")} AS "USD per instance-hour",
       CAST(usd_per_accelerator_hour_4dp AS VARCHAR) AS "USD per accelerator-hour"
FROM ({HEADLINE_PRICES}) AS headline
ORDER BY price_kind = 'capacity_block', accelerator, usd_per_accelerator_hour, instance_type, region
"""

# (b) The cheapest on-demand GPU per model, its stock as its page states it, the providers offering one and those
# stating stock.
HEADLINE_GPU = f"""
SELECT gpu_model AS "GPU", {four_places("usd_per_gpu_hour")} AS "USD per GPU-hour", provider,
       stock_status AS "stock as stated", CAST(providers_offering AS VARCHAR) AS "providers offering",
       CAST(providers_in_stock AS VARCHAR) AS "providers stating stock"
FROM ({GPU_CHEAPEST}) AS cheapest
ORDER BY gpu_model, provider
"""

UNIT_COLUMNS = ", ".join(
    f"{four_places(f'usd_per_{per}_hour * {hours}')} AS usd_per_{short}_{unit}"
    for per, short in (("accelerator", "accel"), ("instance", "instance"))
    for unit, hours in HOURS.items()
)
# Every current offer; the page filters them (the first column, the price kind's family, is for the filter only).
# Ties in price are broken by provider, offering and region, so the order never depends on how DuckDB scanned the
# view.
OFFERS = f"""
SELECT price_kind_family, provider, offering, coalesce(accelerator_model, 'unknown') AS accelerator,
       {trimmed("accelerators_per_offering", 6)} AS accels, {trimmed("accelerator_memory_gib", 2)} AS memory_gib,
       price_kind, coalesce(terms, '') AS terms, coalesce(region, 'not stated') AS region,
       coalesce(stock_status, 'not stated') AS stock_status, {UNIT_COLUMNS},
       strftime(fetched_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S UTC') AS fetched_at, source_url
FROM accelerator_offers
ORDER BY usd_per_accelerator_hour, provider, offering, region NULLS FIRST, price_kind, terms, source_url
"""
