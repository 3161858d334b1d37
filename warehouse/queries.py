"""Named read queries: what changed in a fetch, and the headline tables `ratecard show` prints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from warehouse.binding import execute

# The source's last shape, for the drift rules (each kind's open rows: its History, pipelines.kind).
# `before`: reparse replays old fetches and must compare each with the fetch before it, not the newest.
LAST_SHAPE = """
SELECT shape_fingerprint FROM fetch_log
WHERE source_id = $source_id AND outcome IN ('landed', 'unchanged') AND shape_fingerprint IS NOT NULL
  AND fetch_id < $before
ORDER BY fetch_id DESC LIMIT 1
"""

# The articles' GPU table: cheapest in-stock on-demand USD per GPU-hour per model.
GPU_CHEAPEST = """
SELECT gpu_model, usd_per_gpu_hour, provider, providers_in_stock, listing, original_amount, original_currency,
       original_unit
FROM gpu_cheapest
ORDER BY gpu_model
"""

# The articles' table: on-demand and Capacity Block prices per instance, with the derived accelerator rate. The
# price list's rows (one per region) are summarised by aws_prices_by_region instead.
HEADLINE_PRICES = """
SELECT instance_type, accelerator, accelerator_count AS accels,
       accelerator_memory_value, accelerator_memory_unit, accelerator_memory_derived,
       price_kind, coalesce(region, 'not stated') AS region,
       usd_per_instance_hour, usd_per_accelerator_hour, usd_per_accelerator_hour_4dp
FROM aws_instance_prices
WHERE price_kind IN ('on_demand', 'capacity_block') AND source_family <> 'price_list'  -- per region: see below
ORDER BY accelerator, price_kind, usd_per_instance_hour
"""

SOURCE_FRESHNESS = """
SELECT source_id, last_outcome,
       strftime(last_good_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S UTC') AS last_good_at,
       strftime(last_attempt_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S UTC') AS last_attempt_at,
       last_error
FROM source_freshness ORDER BY source_id
"""

# Price-list rows that `ratecard show` does not list one by one (it lists regions), by kind: where they are is said.
PRICELIST_KIND_COUNTS = """
SELECT price_kind, count(*) AS price_rows, count(DISTINCT instance_type) AS types,
       count(DISTINCT region_code) AS regions
FROM aws_pricelist_price_history WHERE valid_to IS NULL AND price_kind <> 'on_demand'
GROUP BY price_kind ORDER BY price_kind
"""

# The price list per region (`ratecard show`): every region landed, even one pricing no accelerator, with its
# counts by price kind and its cheapest Trainium/Inferentia on-demand instance.
PRICELIST_REGIONS = """
WITH regions AS (
    SELECT region_code FROM aws_pricelist_offers WHERE valid_to IS NULL AND region_code <> '(all regions)'
    UNION SELECT region_code FROM aws_instance_prices WHERE source_family = 'price_list'
),
neuron AS (
    SELECT * FROM aws_instance_prices
    WHERE source_family = 'price_list' AND price_kind = 'on_demand' AND (family LIKE 'trn%' OR family LIKE 'inf%')
)
SELECT r.region_code AS region,
       count(DISTINCT p.instance_type) AS types,
       count(p.instance_type) FILTER (WHERE p.price_kind = 'on_demand') AS on_demand,
       count(p.instance_type) FILTER (WHERE p.price_kind LIKE 'reserved%') AS reserved,
       count(p.instance_type) FILTER (WHERE p.price_kind LIKE '%savings_plan%') AS savings_plans,
       count(p.instance_type) FILTER (WHERE p.price_kind = 'spot') AS spot,
       (SELECT arg_min(n.instance_type, n.usd_per_instance_hour) FROM neuron AS n
        WHERE n.region_code = r.region_code) AS cheapest_neuron,
       (SELECT min(n.usd_per_instance_hour) FROM neuron AS n WHERE n.region_code = r.region_code)
           AS cheapest_neuron_usd
FROM regions AS r
LEFT JOIN aws_instance_prices AS p ON p.source_family = 'price_list' AND p.region_code = r.region_code
GROUP BY r.region_code ORDER BY r.region_code
"""

VIEW_ROW_COUNT = "SELECT count(*) FROM aws_instance_prices"


def rows_as_dicts(
    con: duckdb.DuckDBPyConnection, query: str, params: Mapping[str, object] | None = None
) -> list[dict[str, Any]]:
    cursor = execute(con, query, params or {})
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def one_row(con: duckdb.DuckDBPyConnection, query: str, params: Mapping[str, object] | None = None) -> tuple[Any, ...]:
    """The single row of a query that always returns one (an aggregate, INSERT ... RETURNING)."""
    row = execute(con, query, params or {}).fetchone()
    if row is None:  # DuckDB types fetchone() as optional; for these queries no row is a bug, not data
        raise LookupError(f"query returned no row: {query.strip().splitlines()[0]}")
    return row


GENERATIONS = """
SELECT chip, launch_family, launch_date, launch_status, memory_printed, bandwidth_printed, dense_formats,
       sparse_formats, doc_version, source_url
FROM accelerator_generations
"""

CROSSCHECK_WARNINGS = "SELECT warning FROM accelerator_config_crosscheck WHERE warning IS NOT NULL ORDER BY warning"

# Trainium vs NVIDIA: per accelerator and price kind (on-demand, Capacity Blocks), the lowest figure of each
# measure (each may come from a different price row); a measure no row knows stays NULL.
TRAINIUM_VS_NVIDIA = """
SELECT price_kind, accelerator_spec AS accelerator, spec_source,
       count(*) AS price_rows,
       min(usd_per_accelerator_hour) AS usd_per_accelerator_hour,
       min(usd_per_gib_memory_hour) AS usd_per_gib_memory_hour,
       min(usd_per_dense_pflop_hour_bf16) AS usd_per_dense_pflop_hour_bf16,
       arg_min(fp8_format, usd_per_dense_pflop_hour_fp8) AS fp8_format,
       min(usd_per_dense_pflop_hour_fp8) AS usd_per_dense_pflop_hour_fp8
FROM accelerator_value
WHERE price_kind IN ('on_demand', 'capacity_block')
  AND (accelerator_spec LIKE 'Trainium%' OR spec_source = 'nvidia_reference')
GROUP BY price_kind, accelerator_spec, spec_source
ORDER BY price_kind DESC, spec_source, min(usd_per_dense_pflop_hour_bf16) NULLS LAST, accelerator_spec
"""


def last_fetch_id(con: duckdb.DuckDBPyConnection) -> int:
    """The mark a run starts from: rows logged by the run have greater fetch ids (one writer at a time)."""
    row = con.execute("SELECT coalesce(max(fetch_id), 0) FROM fetch_log").fetchone()
    return int(row[0]) if row else 0
