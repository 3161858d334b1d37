"""What `ratecard pilot costs --workload W` reads: every priced candidate ranked by what a month of the workload's
traffic costs (deployment_costs), the always-on / serverless break-even, and the pilots that are not ranked, with
why."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from warehouse.queries import arrow_table

RANKING = """
SELECT rank, coalesce(provider || ' ', '') || offering AS offering, price_kind, billing, accelerator_model,
       instances, billed_hours_per_month, busy_hours_per_month, utilisation, usd_per_billed_hour, monthly_usd,
       usd_per_million_accepted, coalesce(not_comparable_because, '') AS note
FROM deployment_costs WHERE workload = $workload
ORDER BY rank NULLS LAST, monthly_usd, offering
"""
BREAK_EVEN = """
SELECT accelerator_model, always_on_usd_per_million_at_full_use, serverless_usd_per_million_busy,
       break_even_utilisation, reading
FROM deployment_break_even WHERE workload = $workload ORDER BY accelerator_model
"""
NOT_RANKED = """
SELECT coalesce(provider || ' ', '') || offering AS offering, price_kind, not_priced_because
FROM pilot_standing WHERE workload = $workload AND NOT priced ORDER BY offering
"""
PROFILE = """
SELECT monthly_units, active_hours_per_day, peak_units_per_hour, days_per_month, cold_start_seconds
FROM traffic_profiles WHERE workload = $workload
"""
WORKLOADS = """
SELECT workload FROM pilot_result_history UNION SELECT workload FROM migration_plan_history
UNION SELECT workload FROM traffic_profile_history ORDER BY 1
"""
COST_QUERIES = {"profile": PROFILE, "ranking": RANKING, "break_even": BREAK_EVEN, "not_ranked": NOT_RANKED}


def workload_costs(con: duckdb.DuckDBPyConnection, workload: str) -> dict[str, pa.Table]:
    """The workload's traffic profile, its ranking, break-even and the pilots not ranked, DECIMALs exact."""
    return {name: arrow_table(con, query, {"workload": workload}) for name, query in COST_QUERIES.items()}


def workload_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every workload a pilot, a plan or a traffic profile names."""
    return [str(name) for (name,) in con.execute(WORKLOADS).fetchall()]
