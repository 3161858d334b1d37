"""The front page: the articles' two headline tables first, then every current offer (`accelerator_offers`) under
filters that the page keeps in its URL.

Figures are text from SQL: per-accelerator and per-instance prices at 4 places (half up, never `0E-10`), and the
headline's instance price as printed (trimmed, never fewer than cents). A day is 24 hours and a month 730 (AWS's
month), multiplied in DECIMAL before rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.across_kinds.headline import GPU_CHEAPEST, HEADLINE_PRICES
from pipelines.dashboard.tables import Table

HOURS = {"hour": 1, "day": 24, "month": 730}


def four_places(column: str) -> str:
    """A DECIMAL as text at 4 places, half up."""
    return f"CAST(CAST({column} AS DECIMAL(38, 4)) AS VARCHAR)"


def trimmed(column: str, places: int) -> str:
    """A DECIMAL rounded to `places` as text without trailing zeros (16.000000 -> 16, 37.252903 -> 37.25)."""
    return f"rtrim(rtrim(CAST(CAST({column} AS DECIMAL(38, {places})) AS VARCHAR), '0'), '.')"


def as_printed(column: str) -> str:
    """A price exactly, without the storage scale's zeros but never fewer than cents (20.000000 -> 20.00)."""
    fraction = f"split_part(rtrim(CAST({column} AS VARCHAR), '0'), '.', 2)"
    whole = f"split_part(CAST({column} AS VARCHAR), '.', 1)"
    return f"{whole} || '.' || CASE WHEN length({fraction}) < 2 THEN rpad({fraction}, 2, '0') ELSE {fraction} END"


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
# Every current offer; the page filters them. Ties in price are broken by provider, offering and region, so the
# order never depends on how DuckDB scanned the view.
OFFERS = f"""
SELECT price_kind_family, provider, offering, coalesce(accelerator_model, 'unknown') AS accelerator,
       {trimmed("accelerators_per_offering", 6)} AS accels, {trimmed("accelerator_memory_gib", 2)} AS memory_gib,
       price_kind, coalesce(terms, '') AS terms, coalesce(region, 'not stated') AS region,
       coalesce(stock_status, 'not stated') AS stock_status, {UNIT_COLUMNS},
       strftime(fetched_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S UTC') AS fetched_at, source_url
FROM accelerator_offers
ORDER BY usd_per_accelerator_hour, provider, offering, region NULLS FIRST, price_kind, terms, source_url
"""


@dataclass(frozen=True)
class Filter:
    """One of the offers table's filters: the URL parameter and row attribute it sets, its choices and default."""

    name: str
    column: str
    label: str
    choices: list[str]
    default: str


@dataclass(frozen=True)
class Offers:
    """The offers table: its cells (the first column, the price kind's family, is for filtering only), filters."""

    table: Table
    filters: list[Filter]

    def unit_of(self, column: str) -> str | None:
        """The unit a figure column is in ("hour", "day", "month"), or None for a column every unit shows."""
        unit = column.rpartition("_")[2]
        return unit if column.startswith("usd_per_") and unit in HOURS else None


# (URL parameter, column, label, default): on-demand by default, the family a reader compares first.
FILTERS = (
    ("kind", "price_kind_family", "price kind", "on_demand"),
    ("region", "region", "region", "all"),
    ("accelerator", "accelerator", "accelerator", "all"),
    ("provider", "provider", "provider", "all"),
)


def offers(table: Table) -> Offers:
    """The offers table and its filters, each offering "all" and every value its column holds."""
    filters = []
    for name, column, label, default in FILTERS:
        at = table.columns.index(column)
        filters.append(Filter(name, column, label, ["all", *sorted({row[at] for row in table.rows})], default))
    return Offers(table, filters)
