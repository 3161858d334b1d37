"""`ratecard pilot costs --workload W`: every priced candidate ranked by what a month of the workload's traffic
costs (deployment_costs), the always-on / serverless break-even, and the pilots that are not ranked, with why."""

from __future__ import annotations

from typing import Any

import duckdb
from rich.console import Console

from pipelines.pilots.show import titled_table
from warehouse.queries import rows_as_dicts

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
RANKING_COLUMNS = {
    "rank": ("rank", 0),
    "offering": ("offering", None),
    "price_kind": ("price kind", None),
    "billing": ("billing", None),
    "accelerator_model": ("accelerator", None),
    "instances": ("instances / workers", 0),
    "billed_hours_per_month": ("billed h/month", 2),
    "busy_hours_per_month": ("busy h/month", 2),
    "utilisation": ("utilisation", 4),
    "usd_per_billed_hour": ("USD per billed hour", 4),
    "monthly_usd": ("USD per month", 2),
    "usd_per_million_accepted": ("USD per million units", 6),
    "note": ("not ranked because", None),
}
BREAK_EVEN_COLUMNS = {
    "accelerator_model": ("accelerator", None),
    "always_on_usd_per_million_at_full_use": ("always-on USD per million at full use", 6),
    "serverless_usd_per_million_busy": ("serverless USD per million busy", 6),
    "break_even_utilisation": ("break-even utilisation", 4),
    "reading": ("reading", None),
}


def workload_costs(con: duckdb.DuckDBPyConnection, workload: str) -> dict[str, list[dict[str, Any]]]:
    params = {"workload": workload}
    return {
        name: rows_as_dicts(con, query, params)
        for name, query in (("profile", PROFILE), ("ranking", RANKING), ("break_even", BREAK_EVEN),
                            ("not_ranked", NOT_RANKED))
    }  # fmt: skip


def workload_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every workload a pilot, a plan or a traffic profile names."""
    return [str(name) for (name,) in con.execute(WORKLOADS).fetchall()]


def print_costs(console: Console, workload: str, found: dict[str, list[dict[str, Any]]]) -> bool:
    """The three tables for a workload with a traffic profile; False (after saying so) when no candidate is priced."""
    (profile,) = found["profile"]
    console.print(
        f"{workload}: {profile['monthly_units']} units a month, {profile['active_hours_per_day']} active h a day on "
        f"{profile['days_per_month']} days, peak {profile['peak_units_per_hour']} units/h, cold start "
        f"{profile['cold_start_seconds']} s"
    )
    for row in found["not_ranked"]:
        console.print(f"[yellow]not ranked:[/] {row['offering']} ({row['price_kind']}): {row['not_priced_because']}")
    if not found["ranking"]:
        console.print(f"[red]no priced candidate for {workload!r}[/]: import pilots with `ratecard pilot import`")
        return False
    console.print(titled_table("Monthly cost for this traffic, USD excluding tax", found["ranking"], RANKING_COLUMNS))
    if found["break_even"]:
        console.print(titled_table("Always-on against serverless: the break-even utilisation", found["break_even"],
                             BREAK_EVEN_COLUMNS))  # fmt: skip
    return True
