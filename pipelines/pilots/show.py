"""The pilot queries `ratecard show` reads (cost per million work units, each plan's payback verdict, each
workload's cheapest deployment for its traffic profile; their columns are `pipelines/cli/pilot_columns.py`'s), and
the training spends `ratecard pilot training` prints."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rich.table import Table

COST_PER_WORK = """
SELECT workload, coalesce(provider || ' ', '') || offering AS offering, price_kind,
       coalesce(region, 'not stated') AS region, work_unit, units_per_hour, usd_per_offering_hour,
       usd_per_million_units, CAST(price_fetched_at AS DATE) AS price_date
FROM cost_per_work ORDER BY workload, usd_per_million_units, offering
"""
PAYBACK = """
SELECT workload, coalesce(baseline_provider || ' ', '') || baseline_offering AS baseline,
       coalesce(candidate_provider || ' ', '') || candidate_offering AS candidate,
       monthly_saving_usd, one_time_cost_usd, months_to_payback, lifetime_months, verdict
FROM migration_payback ORDER BY workload, months_to_payback NULLS LAST, candidate
"""

DECISIONS = """
SELECT workload, coalesce(provider || ' ', '') || offering AS offering, price_kind, billing, instances,
       utilisation, monthly_usd, usd_per_million_accepted,
       count(*) OVER (PARTITION BY workload) AS candidates
FROM deployment_costs
QUALIFY rank = 1 AND row_number() OVER (PARTITION BY workload ORDER BY monthly_usd, offering) = 1
ORDER BY workload
"""


def _text(value: Any, places: int | None = None) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        value = value.quantize(Decimal(1).scaleb(-places)) if places is not None else value.normalize()
        return format(value, "f")
    return str(value)


def titled_table(title: str, rows: list[dict[str, Any]], columns: dict[str, tuple[str, int | None]]) -> Table:
    table = Table(title=title, title_justify="left")
    for header, places in columns.values():
        table.add_column(header, justify="right" if places is not None else "left")
    for row in rows:
        table.add_row(*(_text(row[name], places) for name, (_, places) in columns.items()))
    return table


TRAINING = """
SELECT workload, coalesce(provider || ' ', '') || offering AS offering, price_kind, instances, hours_to_target,
       billed_hours, usd_per_offering_hour, spend_to_target_usd, coalesce(CAST(rank AS VARCHAR), 'not compared')
           AS rank
FROM training_costs WHERE list_contains($workloads, workload)
ORDER BY workload, comparable DESC, rank, offering
"""


def training_table(rows: list[dict[str, Any]]) -> Table:
    return titled_table(
        "Spend to the target quality (training_costs: instances x billed hours x price, every overhead billed; "
        "a Capacity Block in whole blocks), USD excluding tax",
        rows,
        {
            "workload": ("workload", None),
            "offering": ("offering", None),
            "price_kind": ("price kind", None),
            "instances": ("instances", 0),
            "hours_to_target": ("hours to target", 3),
            "billed_hours": ("billed hours", 3),
            "usd_per_offering_hour": ("USD/hour", 4),
            "spend_to_target_usd": ("USD to target", 2),
            "rank": ("rank", None),
        },
    )
