"""The headline tables over the published views (`ratecard show` prints them; the view assets preview them)."""

from __future__ import annotations

# The articles' GPU table: cheapest on-demand USD per GPU-hour per model not stated sold out, the providers offering
# one, and how many of them state it in stock.
GPU_CHEAPEST = """
SELECT gpu_model, usd_per_gpu_hour, provider, coalesce(stock_status, 'unknown') AS stock_status, providers_offering,
       providers_in_stock, listing, original_amount, original_currency, original_unit
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
           AS cheapest_neuron_usd_per_instance_hour
FROM regions AS r
LEFT JOIN aws_instance_prices AS p ON p.source_family = 'price_list' AND p.region_code = r.region_code
GROUP BY r.region_code ORDER BY r.region_code
"""

VIEW_ROW_COUNT = "SELECT count(*) FROM aws_instance_prices"

GENERATIONS = """
SELECT chip, launch_family, launch_date, launch_status, memory_printed, bandwidth_printed, dense_formats,
       sparse_formats, doc_version, source_url
FROM accelerator_generations
"""

CROSSCHECK_WARNINGS = "SELECT warning FROM accelerator_config_crosscheck WHERE warning IS NOT NULL ORDER BY warning"

# AWS accelerators (Trainium, Inferentia) vs NVIDIA: per accelerator and price kind (on-demand, Capacity Blocks),
# the lowest figure of each measure (each may come from a different price row); a measure no row knows stays NULL.
AWS_ACCELERATORS_VS_NVIDIA = """
SELECT price_kind, accelerator_spec AS accelerator, spec_source,
       count(*) AS price_rows,
       min(usd_per_accelerator_hour) AS usd_per_accelerator_hour,
       min(usd_per_gib_memory_hour) AS usd_per_gib_memory_hour,
       min(usd_per_dense_pflop_hour_bf16) AS usd_per_dense_pflop_hour_bf16,
       arg_min(fp8_format, usd_per_dense_pflop_hour_fp8) AS fp8_format,
       min(usd_per_dense_pflop_hour_fp8) AS usd_per_dense_pflop_hour_fp8
FROM accelerator_value
WHERE price_kind IN ('on_demand', 'capacity_block')
  AND (accelerator_spec LIKE 'Trainium%' OR accelerator_spec LIKE 'Inferentia%' OR spec_source = 'nvidia_reference')
GROUP BY price_kind, accelerator_spec, spec_source
ORDER BY price_kind DESC, spec_source, min(usd_per_dense_pflop_hour_bf16) NULLS LAST, accelerator_spec
"""
