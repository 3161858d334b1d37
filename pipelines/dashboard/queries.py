"""Read queries behind the dashboard's pages, run against the read-only snapshot.

Figures are cast to text in SQL, so the page shows exactly DuckDB's DECIMAL digits (no float on the way).
"""

from __future__ import annotations

TS = "strftime({col} AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S UTC')"
ISO = "strftime({col} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ')"  # what the charts' time axis parses

CHEAPEST = f"""
SELECT gpu_model, CAST(usd_per_gpu_hour_4dp AS VARCHAR) AS usd_per_gpu_hour, provider,
       coalesce(stock_status, 'unknown') AS stock_status, providers_offering, providers_in_stock,
       'on_demand' AS price_kind,  -- gpu_cheapest ranks on-demand listings only; said on the page
       listing, CAST(original_amount AS VARCHAR) || ' ' || original_currency || ' ' || original_unit AS as_printed,
       source_url, {TS.format(col="fetched_at")} AS fetched_at
FROM gpu_cheapest
ORDER BY gpu_model, provider, listing
"""

VIEW_EXISTS = "SELECT count(*) FROM duckdb_views() WHERE NOT internal AND view_name = $name"
# Whatever its columns, in the order of all of them left to right: the same rows always in the same order.
BY_REGION = "SELECT * FROM aws_prices_by_region ORDER BY ALL"

# One point where each price version starts and one where it ends (or the newest fetch, while it is open),
# drawn as a step line: the price held from valid_from until the next version.
HISTORY = f"""
WITH newest AS (SELECT max(fetched_at) AS t FROM fetch_log),
versions AS (
    SELECT {{chart}} AS chart, {{series}} AS series,
           valid_from, coalesce(valid_to, greatest(newest.t, valid_from)) AS valid_until,
           {{usd}} AS usd, source_url, fetched_at
    FROM {{history}}, newest
)
SELECT chart, series, {ISO.format(col="point_at")} AS point_at, CAST(usd AS VARCHAR) AS usd, source_url,
       {TS.format(col="fetched_at")} AS fetched_at
FROM (SELECT *, valid_from AS point_at FROM versions UNION ALL SELECT *, valid_until FROM versions)
ORDER BY chart, series, point_at, valid_from
"""
NO_REGION = "coalesce(region, 'region not stated')"
AWS_HISTORY = HISTORY.format(
    chart="instance_type",
    series=f"price_kind || ' · ' || {NO_REGION}",
    usd="usd_per_accelerator_hour_4dp",
    history="aws_instance_price_history",
)
# The price list per region: on-demand and spot lines (one price each per type and region); the reserved and
# Savings Plans terms, a dozen per region, are read with `ratecard history TYPE --kind reserved`.
PRICELIST_HISTORY = HISTORY.format(
    chart="instance_type || ' (price list)'",
    series="price_kind || ' · ' || region_code",
    usd="usd_per_accelerator_hour_4dp",
    history="(SELECT * FROM aws_pricelist_price_history WHERE price_kind IN ('on_demand', 'spot')) AS h",
)
GPU_HISTORY = HISTORY.format(
    chart="coalesce(gpu_model, 'unrecognised: ' || gpu_name)",
    series=f"provider || ' · ' || listing || ' · ' || price_kind || ' · ' || {NO_REGION}",
    usd="usd_per_gpu_hour_4dp",
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

# Per workload: one line per comparable candidate, its monthly cost for the work an always-on instance of the
# workload's cheapest always-on option does at each utilisation (5 % steps), over the profile's own month
# (days_per_month x 24 h, as deployment_costs bills). Always-on: the instances that work needs at full use, billed
# every hour; serverless: that work's busy hours at its hourly price (tails aside, as in deployment_break_even).
# The serverless lines cross the always-on one at the break-even utilisation.
DEPLOYMENT_CURVES = """
WITH reference AS (
    SELECT workload, units_per_hour AS reference_units_per_hour
    FROM deployment_costs WHERE billing = 'always_on' AND comparable
    QUALIFY row_number() OVER (PARTITION BY workload ORDER BY monthly_usd, offering) = 1
),
options AS (
    SELECT d.workload, coalesce(d.provider || ' ', '') || d.offering || ' (' || d.billing || ')' AS series,
           d.billing, d.units_per_hour, d.usd_per_billed_hour, r.reference_units_per_hour,
           d.days_per_month, CAST(d.days_per_month * 100 AS HUGEINT) * 24 AS centihours
    FROM deployment_costs AS d JOIN reference AS r USING (workload)
    WHERE d.comparable
)
SELECT workload, series, CAST(step * 5 AS VARCHAR) AS utilisation_pct,
       CAST(CASE WHEN billing = 'always_on'
                 THEN ceil_quotient(CAST(reference_units_per_hour * 1000 AS HUGEINT) * step,
                                    CAST(units_per_hour * 1000 AS HUGEINT) * 20)
                      * CAST(days_per_month * 24 AS DECIMAL(38, 6)) * usd_per_billed_hour
                 ELSE exact_quotient(CAST(reference_units_per_hour * 1000 AS HUGEINT) * step * centihours
                                     * CAST(usd_per_billed_hour * 1000000000000 AS HUGEINT),
                                     CAST(units_per_hour * 1000 AS HUGEINT) * 20 * 100 * 1000000000000) END
            AS DECIMAL(38, 2)) AS usd
FROM options, range(1, 21) AS steps(step)
ORDER BY workload, series, step
"""

DEPLOYMENT = """
SELECT workload, CAST(rank AS VARCHAR) AS rank, coalesce(provider || ' ', '') || offering AS offering, price_kind,
       billing, CAST(instances AS VARCHAR) AS instances, CAST(billed_hours_per_month AS VARCHAR) AS billed_hours,
       CAST(utilisation AS VARCHAR) AS utilisation, CAST(CAST(monthly_usd AS DECIMAL(38, 2)) AS VARCHAR) AS monthly_usd,
       coalesce(not_comparable_because, '') AS not_ranked_because
FROM deployment_costs
ORDER BY workload, rank NULLS LAST, monthly_usd, provider NULLS FIRST, offering, billing, price_kind
"""

BREAK_EVEN = """
SELECT workload, accelerator_model, CAST(break_even_utilisation AS VARCHAR) AS break_even_utilisation, reading
FROM deployment_break_even ORDER BY workload, accelerator_model
"""
