"""How `ratecard pilot costs` shows a workload's costs: its traffic profile in a line, the pilots not ranked and why,
then the ranking and the always-on / serverless break-even as tables fitted to 100 columns (`--wide`: every
column); or the four tables as JSON (one object keyed by name), CSV or Parquet (one table, `--table`)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from rich.console import Console

from pipelines.cli import pilot_columns
from pipelines.cli.fitted import Printer
from pipelines.cli.formats import OutputFormat, write_tables


class CostTable(StrEnum):
    """The tables `pilot costs` reads, by the names its JSON keys them with and `--table` chooses."""

    ranking = "ranking"
    break_even = "break_even"
    not_ranked = "not_ranked"
    profile = "profile"


def print_costs(console: Console, workload: str, found: dict[str, Any], *, wide: bool) -> bool:
    """The tables for a workload with a traffic profile; False (after saying so) when no candidate is priced."""
    rows = {name: table.to_pylist() for name, table in found.items()}
    show = Printer(console, wide=wide)
    (profile,) = rows["profile"]
    show(
        f"{workload}: {profile['monthly_units']} units a month, {profile['active_hours_per_day']} active h a day on "
        f"{profile['days_per_month']} days, peak {profile['peak_units_per_hour']} units/h, cold start "
        f"{profile['cold_start_seconds']} s"
    )
    for row in rows["not_ranked"]:
        show(f"[yellow]not ranked:[/] {row['offering']} ({row['price_kind']}): {row['not_priced_because']}")
    if not rows["ranking"]:
        show(f"[red]no priced candidate for {workload!r}[/]: import pilots with `ratecard pilot import`")
        return False
    show.table("Monthly cost for this traffic, USD excluding tax", rows["ranking"], pilot_columns.RANKING)
    if rows["break_even"]:
        show.table(
            "Always-on against serverless: the break-even utilisation", rows["break_even"], pilot_columns.BREAK_EVEN
        )
    return True


def write_costs(found: dict[str, Any], fmt: OutputFormat, output: Path | None, table: CostTable | None) -> None:
    """JSON: every table (or the one asked) keyed by name; CSV and Parquet: the ranking unless --table says."""
    chosen = table.value if table else (None if fmt is OutputFormat.json else CostTable.ranking.value)
    write_tables(found, fmt, output, chosen)
