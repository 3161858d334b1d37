"""The columns of the pilot tables (`ratecard show` and `ratecard pilot costs`): which the 100-column table keeps and
the places each figure is printed at (fields as the queries in `pipelines/pilots/show.py` and `costs.py` name them)."""

from __future__ import annotations

from pipelines.cli.fitted import Column

COST_PER_WORK = [
    Column("workload", "workload"),
    Column("offering", "offering", keep=26),
    Column("price_kind", "price kind", short="kind"),
    Column("region", "region", narrow=False),
    Column("work_unit", "unit", narrow=False),
    Column("units_per_hour", "units/hour", places=0),
    Column("usd_per_offering_hour", "USD/hour", places=4),
    Column("usd_per_million_units", "USD per million units", short="USD/M\nunits", places=6),
    Column("price_date", "price date", narrow=False),
]
PAYBACK = [
    Column("workload", "workload"),
    Column("baseline", "baseline", keep=14),
    Column("candidate", "candidate", keep=16),
    Column("monthly_saving_usd", "monthly saving USD", short="saving\nUSD/month", places=2),
    Column("one_time_cost_usd", "one-time USD", narrow=False, places=2),
    Column("months_to_payback", "months to payback", short="payback\nmonths", places=2),
    Column("lifetime_months", "lifetime months", narrow=False, places=0),
    Column("verdict", "verdict", whole=True),
]
DECISIONS = [
    Column("workload", "workload"),
    Column("offering", "cheapest option", keep=26),
    Column("price_kind", "price kind", narrow=False),
    Column("billing", "billing"),
    Column("instances", "instances / workers", short="inst.", places=0),
    Column("utilisation", "utilisation", narrow=False, places=4),
    Column("monthly_usd", "USD per month", short="USD/month", places=2),
    Column("usd_per_million_accepted", "USD per million units", short="USD/M\nunits", places=6),
    Column("candidates", "candidates", narrow=False, places=0),
]
RANKING = [
    Column("rank", "rank", places=0),
    Column("offering", "offering", keep=22),
    Column("price_kind", "price kind", narrow=False),
    Column("billing", "billing"),
    Column("accelerator_model", "accelerator"),
    Column("instances", "instances / workers", short="inst.", places=0),
    Column("billed_hours_per_month", "billed h/month", narrow=False, places=2),
    Column("busy_hours_per_month", "busy h/month", narrow=False, places=2),
    Column("utilisation", "utilisation", short="util.", places=4),
    Column("usd_per_billed_hour", "USD per billed hour", narrow=False, places=4),
    Column("monthly_usd", "USD per month", short="USD/month", places=2),
    Column("usd_per_million_accepted", "USD per million units", short="USD/M\nunits", places=6),
    Column("note", "not ranked because"),
]
BREAK_EVEN = [
    Column("accelerator_model", "accelerator"),
    Column("always_on_usd_per_million_at_full_use", "always-on USD per million at full use",
           short="always-on\nUSD/M at\nfull use", places=6),
    Column("serverless_usd_per_million_busy", "serverless USD per million busy", short="serverless\nUSD/M busy",
           places=6),
    Column("break_even_utilisation", "break-even utilisation", short="break-even\nutilisation", places=4),
    Column("reading", "reading"),
]  # fmt: skip
