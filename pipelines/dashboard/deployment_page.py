"""The deployment page: what a month of each workload's traffic costs on each candidate, and per accelerator where
serverless and always-on break even, charted for the same accelerator as the break-even table's row."""

from __future__ import annotations

from typing import Any

import duckdb

from pipelines.dashboard.tables import charts, filtered, table, view_exists

# Every candidate's month; the first two columns are for the page's filters (the offering names the provider).
DEPLOYMENT = """
SELECT price_kind_family(price_kind) AS price_kind_family, coalesce(provider, 'AWS') AS provider, workload,
       CAST(rank AS VARCHAR) AS rank, coalesce(provider || ' ', '') || offering AS offering,
       accelerator_model AS accelerator, coalesce(region, 'not stated') AS region, price_kind, billing,
       CAST(instances AS VARCHAR) AS instances, CAST(billed_hours_per_month AS VARCHAR) AS billed_hours,
       CAST(utilisation AS VARCHAR) AS utilisation, CAST(CAST(monthly_usd AS DECIMAL(38, 2)) AS VARCHAR) AS monthly_usd,
       coalesce(not_comparable_because, '') AS not_ranked_because
FROM deployment_costs
ORDER BY workload, rank NULLS LAST, monthly_usd, provider NULLS FIRST, offering, billing, price_kind
"""

BREAK_EVEN = """
SELECT workload, accelerator_model, CAST(break_even_utilisation AS VARCHAR) AS break_even_utilisation, reading
FROM deployment_break_even ORDER BY workload, accelerator_model
"""

# One chart per deployment_break_even row: the workload's comparable options on that accelerator, each line its
# monthly cost for the work the accelerator's reference option does at each utilisation (5 % steps), over the
# profile's own month (days_per_month x 24 h, as deployment_costs bills). The reference is the always-on option
# cheapest per unit of work at full use, the one deployment_break_even prices, so the cheapest serverless line
# crosses it at the table's break-even utilisation. Always-on: the instances that work needs at full use, billed
# every hour; serverless: that work's busy hours at its hourly price (tails aside, as in deployment_break_even).
DEPLOYMENT_CURVES = """
WITH options AS (
    SELECT d.workload, d.accelerator_model, b.break_even_utilisation,
           coalesce(d.provider || ' ', '') || d.offering || ' (' || d.billing || ')' AS series,
           d.billing, d.units_per_hour, d.usd_per_billed_hour, d.days_per_month,
           CAST(d.days_per_month * 100 AS HUGEINT) * 24 AS centihours,
           price_kind_family(d.price_kind) AS price_kind_family, coalesce(d.region, 'not stated') AS region,
           d.accelerator_model AS accelerator, coalesce(d.provider, 'AWS') AS provider
    FROM deployment_costs AS d JOIN deployment_break_even AS b USING (workload, accelerator_model)
    WHERE d.comparable
),
reference AS (
    SELECT workload, accelerator_model, units_per_hour AS reference_units_per_hour
    FROM options WHERE billing = 'always_on'
    QUALIFY row_number() OVER (
        PARTITION BY workload, accelerator_model
        ORDER BY exact_quotient(CAST(usd_per_billed_hour * 1000000000000 AS HUGEINT),
                                CAST(units_per_hour * 1000 AS HUGEINT)), series) = 1
)
SELECT workload || ' · ' || accelerator_model || ': break-even at '
           || CAST(CAST(break_even_utilisation * 100 AS DECIMAL(38, 2)) AS VARCHAR) || ' %' AS chart,
       series, CAST(step * 5 AS VARCHAR) AS utilisation_pct,
       CAST(CASE WHEN billing = 'always_on'
                 THEN ceil_quotient(CAST(reference_units_per_hour * 1000 AS HUGEINT) * step,
                                    CAST(units_per_hour * 1000 AS HUGEINT) * 20)
                      * CAST(days_per_month * 24 AS DECIMAL(38, 6)) * usd_per_billed_hour
                 ELSE exact_quotient(CAST(reference_units_per_hour * 1000 AS HUGEINT) * step * centihours
                                     * CAST(usd_per_billed_hour * 1000000000000 AS HUGEINT),
                                     CAST(units_per_hour * 1000 AS HUGEINT) * 20 * 100 * 1000000000000) END
            AS DECIMAL(38, 2)) AS usd,
       price_kind_family, region, accelerator, provider
FROM options JOIN reference USING (workload, accelerator_model), range(1, 21) AS steps(step)
ORDER BY chart, series, step
"""


def deployment(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The deployment page's tables and cost curves; none from a snapshot made before the deployment views."""
    if not view_exists(con, "deployment_costs"):
        return {}
    costs = table(con, "deployment", DEPLOYMENT)
    return {
        "deployment": filtered(costs, hidden=2),
        "break_even": table(con, "break-even", BREAK_EVEN),
        "deployment_charts": charts(con, "deployment-curve", DEPLOYMENT_CURVES),
    }
