"""`ratecard changes` and `ratecard history`: the change feed and one offering's price timeline, as rich tables."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from pipelines.cli.options import SnapshotReadOption
from pipelines.cli.reporting import Mistake
from pipelines.offers.history import CHANGES, HISTORY, OFFERING_NAMES, over_threshold
from warehouse.files import DEFAULT_DB_PATH, WarehouseMissing
from warehouse.target import exists

DURATION = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 604800}
SPARKS = "▁▂▃▄▅▆▇█"
DbOption = SnapshotReadOption


def parse_since(text: str) -> timedelta:
    """`7d`, `12h`, `30m`, `2w`."""
    match = DURATION.match(text)
    if not match:
        raise typer.BadParameter(f"{text!r} is not a duration like 7d, 12h, 30m or 2w", param_hint="--since")
    try:
        return timedelta(seconds=int(match[1]) * UNIT_SECONDS[match[2]])
    except OverflowError:
        raise too_far_back(text) from None


def window_start(text: str, now: datetime) -> datetime:
    """The instant `--since` reaches back to; one before the calendar's first year is a usage error."""
    try:
        return now - parse_since(text)
    except OverflowError:
        raise too_far_back(text) from None


def too_far_back(text: str) -> typer.BadParameter:
    return typer.BadParameter(
        f"{text!r} reaches back before the year 1: give a shorter window, e.g. 520w (ten years)", param_hint="--since"
    )


def parse_percent(text: str) -> Decimal:
    try:
        value = Decimal(text.strip().removesuffix("%"))
    except ArithmeticError:
        value = Decimal(-1)
    if not value.is_finite() or value < 0:
        raise typer.BadParameter(f"{text!r} is not a percentage like 5% or 0.5", param_hint="--min-change")
    return value


def no_history(db: Path, offering: str, kind: str | None, region: str | None) -> Mistake:
    """History found nothing: name what was asked, and the nearest names the warehouse does hold."""
    from pipelines.cli.hints import nearest_names

    names = {row["name"].lower() for row in query(db, OFFERING_NAMES, {}) if row["name"]}
    near = nearest_names(offering, names)
    if offering.lower() in names:
        hint = f"{offering} has prices, only not with these filters: `ratecard history {offering}` lists them all"
    elif near:
        hint = f"did you mean {', '.join(near)}?"
    else:
        hint = "name an instance type (trn1.32xlarge) or a GPU model (H100); `ratecard show` lists what is priced"
    asked = f"kind {kind or 'any'}, region {region or 'any'}"
    return Mistake(f"no price history for {offering!r} ({asked}) in {db}", hint, code=1)


def money(value: Decimal | None) -> str:
    return "" if value is None else f"{value.quantize(Decimal('0.0001'))}"


def sparkline(values: list[Decimal]) -> str:
    low, high = min(values), max(values)
    span = high - low
    steps = len(SPARKS) - 1
    return "".join(SPARKS[int((v - low) / span * steps) if span else steps // 2] for v in values)


def query(db: Path, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    import duckdb

    from pipelines.cli.show import reading
    from warehouse.queries import rows_as_dicts

    if not exists(db):
        raise WarehouseMissing(db, "does not exist yet")
    with reading(db) as con:
        try:
            return rows_as_dicts(con, sql, params)
        except duckdb.CatalogException as exc:  # a snapshot published by an earlier release
            raise WarehouseMissing(db, f"its published snapshot predates this view ({exc})") from exc


def changes_table(rows: list[dict[str, Any]], title: str) -> Table:
    table = Table(title=title)
    for name in ("when (UTC)", "change", "offering", "kind", "region", "old", "new", "change %"):
        table.add_column(name, justify="right" if name in ("old", "new", "change %") else "left")
    for r in rows:
        offering = r["offering"] or r["source_id"]
        who = f"{r['provider']} {offering}" if r["provider"] and r["provider"] != "AWS" else offering
        old = money(r["old_usd_per_accelerator_hour"]) if r["change"] == "price" else (r["old_value"] or "")
        new = money(r["new_usd_per_accelerator_hour"]) if r["change"] == "price" else (r["new_value"] or "")
        pct = "" if r["change_pct"] is None else f"{r['change_pct']:+}%"
        style = "green" if pct.startswith("-") else "red" if pct.startswith("+") else ""
        when = r["changed_at"].astimezone(UTC).strftime("%Y-%m-%d %H:%M")
        table.add_row(
            when,
            r["change"],
            who,
            r["price_kind"] or "",
            r["region"] if r["provider"] else "",
            old[:16],
            new[:16],
            f"[{style}]{pct}[/]" if style else pct,
        )
    return table


def history_tables(rows: list[dict[str, Any]], offering: str) -> tuple[Table, Table]:
    series: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for r in rows:
        key: tuple[str, ...] = (r["provider"], r["offering"], r["price_kind"], r["region"] or "not stated")
        series.setdefault(key, []).append(r)
    trend = Table(title=f"{offering}: USD per accelerator-hour (GPU-hour), excluding tax, per version")
    for name in ("provider", "offering", "kind", "region", "first", "now", "min", "max", "versions", "trend"):
        trend.add_column(name, justify="right" if name in ("first", "now", "min", "max", "versions") else "left")
    timeline = Table(title=f"{offering}: price timeline (valid from → to; open = current)")
    for name in ("provider", "offering", "kind", "region", "valid from (UTC)", "valid to", "USD/accel-h", "stock"):
        timeline.add_column(name, justify="right" if name == "USD/accel-h" else "left")
    for key, versions in series.items():
        prices = [v["usd_per_accelerator_hour"] for v in versions]
        stats = (prices[0], prices[-1], min(prices), max(prices))
        current = versions[-1]["valid_to"] is None
        trend.add_row(
            *key, *(money(p) for p in stats), str(len(prices)), sparkline(prices) + ("" if current else " (gone)")
        )
        for v in versions:
            to = "open" if v["valid_to"] is None else f"{v['valid_to'].astimezone(UTC):%Y-%m-%d %H:%M:%S}"
            timeline.add_row(
                *key,
                f"{v['valid_from'].astimezone(UTC):%Y-%m-%d %H:%M:%S}",
                to,
                money(v["usd_per_accelerator_hour"]),
                v["stock_status"] or "",
            )
    return trend, timeline


def register(app: typer.Typer, console: Console) -> None:
    @app.command()
    def changes(
        since: Annotated[str, typer.Option("--since", help="How far back: 7d, 12h, 30m, 2w.")] = "7d",
        min_change: Annotated[str, typer.Option("--min-change", help="Price moves of at least this, e.g. 5%.")] = "0%",
        db: DbOption = DEFAULT_DB_PATH,
    ) -> None:
        """What moved: price changes, listings added or removed, stock flips and page shape changes."""
        start, min_pct = window_start(since, datetime.now(UTC)), parse_percent(min_change)
        rows = [r for r in query(db, CHANGES, {"since": start}) if over_threshold(r, min_pct)]
        console.print(
            changes_table(rows, f"Changes since {start:%Y-%m-%d %H:%M} UTC (USD per accelerator-hour, excl. tax)")
        )
        if not rows:
            console.print("no changes in that window")

    @app.command()
    def history(
        offering: Annotated[str, typer.Argument(help="An instance type (trn1.32xlarge) or a GPU model (H100).")],
        kind: Annotated[str | None, typer.Option("--kind", help="Only this price kind (on_demand, spot, ...).")] = None,
        region: Annotated[str | None, typer.Option("--region", help="Only this region.")] = None,
        db: DbOption = DEFAULT_DB_PATH,
    ) -> None:
        """The price timeline of one instance type or GPU model, with a sparkline per offering."""
        rows = query(db, HISTORY, {"offering": offering, "kind": kind, "region": region})
        if not rows:
            raise no_history(db, offering, kind, region)
        for table in history_tables(rows, offering):
            console.print(table)
