"""Read queries behind the dashboard's pages, run against the read-only snapshot.

Figures are cast to text in SQL, so the page shows exactly DuckDB's DECIMAL digits (no float on the way).
"""

from __future__ import annotations

from pipelines.dashboard.figures import TIME as TS
from pipelines.dashboard.figures import as_printed, four_places, trimmed

ISO = "strftime({col} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ')"  # what the charts' time axis parses

CHEAPEST = f"""
SELECT gpu_model, CAST(usd_per_gpu_hour_4dp AS VARCHAR) AS usd_per_gpu_hour, provider,
       coalesce(stock_status, 'unknown') AS stock_status, providers_offering, providers_in_stock,
       'on_demand' AS price_kind,  -- gpu_cheapest ranks on-demand listings only; said on the page
       listing, {as_printed("original_amount")} || ' ' || original_currency || ' ' || original_unit AS as_printed,
       source_url, {TS.format(col="fetched_at")} AS fetched_at
FROM gpu_cheapest
ORDER BY gpu_model, provider, listing
"""

# The price list per region, each figure at the precision it is printed or derived at: the hourly and upfront parts
# as printed, the effective instance-hour and the accelerator-hour at 4 places (half up); the prices first, so they
# are on screen. The first column is for the price kind filter. Ordered by type, kind and terms, then cheapest
# region first: the same rows always in the same order.
BY_REGION = f"""
SELECT price_kind_family(price_kind) AS price_kind_family, instance_type, price_kind,
       concat_ws(' ', lease_years || '-year', lower(purchase_option), lower(offering_class)) AS terms,
       location AS region, {four_places("usd_per_accelerator_hour")} AS usd_per_accel_hour,
       {four_places("usd_per_instance_hour")} AS usd_per_instance_hour, {as_printed("hourly_usd")} AS hourly_usd,
       coalesce({as_printed("upfront_usd")}, '') AS upfront_usd, price_rank || ' of ' || region_count AS rank,
       cheapest_region_code AS cheapest_region, coalesce(accelerator, 'unknown') AS accelerator,
       {trimmed("coalesce(accelerator_share, accelerator_count)", 6)} AS accels, region_code,
       {TS.format(col="fetched_at")} AS fetched_at, source_url
FROM aws_prices_by_region
ORDER BY instance_type, price_kind, lease_years NULLS FIRST, purchase_option NULLS FIRST, offering_class NULLS FIRST,
         usd_per_instance_hour, region_code
"""

# One point where each price version starts and one where it ends (or the newest fetch, while it is open),
# drawn as a step line: the price held from valid_from until the next version. Each point carries the page filters'
# fields (pipelines.dashboard.filters), so a filter picks lines as it picks the offers table's rows.
HISTORY = f"""
WITH newest AS (SELECT max(fetched_at) AS t FROM fetch_log),
versions AS (
    SELECT {{chart}} AS chart, {{series}} AS series,
           valid_from, coalesce(valid_to, greatest(newest.t, valid_from)) AS valid_until,
           {{usd}} AS usd, source_url, fetched_at, price_kind_family(price_kind) AS price_kind_family,
           {{region}} AS region, {{accelerator}} AS accelerator, {{provider}} AS provider
    FROM {{history}}, newest
)
SELECT chart, series, {ISO.format(col="point_at")} AS point_at, CAST(usd AS VARCHAR) AS usd, source_url,
       {TS.format(col="fetched_at")} AS fetched_at, price_kind_family, region, accelerator, provider
FROM (SELECT *, valid_from AS point_at FROM versions UNION ALL SELECT *, valid_until FROM versions)
ORDER BY chart, series, point_at, valid_from
"""
NO_REGION = "coalesce(region, 'not stated')"  # as the offers table's region filter says it
SERIES_REGION = "coalesce(region, 'region not stated')"
# A product page's history names no accelerator: the type's, as the current prices name it (one per type).
AWS_ACCELERATOR = """(SELECT h.*, a.accelerator FROM aws_instance_price_history AS h
    LEFT JOIN (SELECT instance_type, max(accelerator) AS accelerator FROM aws_instance_prices GROUP BY ALL) AS a
    USING (instance_type)) AS h"""
AWS_HISTORY = HISTORY.format(
    chart="instance_type",
    series=f"price_kind || ' · ' || {SERIES_REGION}",
    usd="usd_per_accelerator_hour_4dp",
    region=NO_REGION,
    accelerator="coalesce(accelerator, 'unknown')",
    provider="'AWS'",
    history=AWS_ACCELERATOR,
)
# The price list per region: on-demand and spot lines (one price each per type and region); the reserved and
# Savings Plans terms, a dozen per region, are read with `ratecard history TYPE --kind reserved`.
PRICELIST_HISTORY = HISTORY.format(
    chart="instance_type || ' (price list)'",
    series="price_kind || ' · ' || region_code",
    usd="usd_per_accelerator_hour_4dp",
    region="coalesce(location, region_code)",
    accelerator="coalesce(accelerator, 'unknown')",
    provider="'AWS'",
    history="(SELECT * FROM aws_pricelist_price_history WHERE price_kind IN ('on_demand', 'spot')) AS h",
)
GPU_HISTORY = HISTORY.format(
    chart="coalesce(gpu_model, 'unrecognised: ' || gpu_name)",
    series=f"provider || ' · ' || listing || ' · ' || price_kind || ' · ' || {SERIES_REGION}",
    usd="usd_per_gpu_hour_4dp",
    region=NO_REGION,
    accelerator="coalesce(gpu_model, 'unknown')",
    provider="provider",
    history="gpu_listing_history",
)

FRESHNESS = f"""
SELECT s.source_id, s.last_outcome, coalesce({TS.format(col="s.last_good_at")}, 'never') AS last_good_at,
       {TS.format(col="s.last_attempt_at")} AS last_attempt_at, coalesce(s.last_error, '') AS last_error,
       array_to_string(coalesce(f.warnings, []), '; ') AS warnings, f.url AS source_url
FROM source_freshness s
LEFT JOIN (SELECT source_id, arg_max(warnings, fetch_id) AS warnings, arg_max(url, fetch_id) AS url
           FROM fetch_log GROUP BY source_id) f USING (source_id)
ORDER BY s.source_id
"""

QUARANTINE = f"""
SELECT source_id, {TS.format(col="fetched_at")} AS fetched_at, stage, array_to_string(reasons, '; ') AS reasons,
       url AS source_url, sha256, coalesce(parser_version, '') AS parser_version
FROM quarantine
ORDER BY fetched_at DESC, source_id, stage, sha256
"""

DICTIONARY = """
SELECT o.kind, o.name, coalesce(o.comment, '') AS comment, c.column_name, c.data_type,
       coalesce(c.comment, k.comment, '') AS column_comment  -- a DuckLake keeps no view-column comments
FROM (SELECT 'view' AS kind, view_name AS name, comment FROM duckdb_views()
      WHERE NOT internal AND database_name = current_database()
      UNION ALL SELECT 'table', table_name, comment FROM duckdb_tables()
      WHERE NOT internal AND database_name = current_database()) o
JOIN duckdb_columns() c ON c.table_name = o.name AND c.database_name = current_database()
LEFT JOIN catalog_comments k ON k.object_kind = 'column' AND k.object_name = c.table_name
                             AND k.column_name = c.column_name
ORDER BY o.kind DESC, o.name, c.column_index
"""
