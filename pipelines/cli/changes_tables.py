"""The tables of `ratecard changes` and `ratecard history`, fitted to 100 columns (two lines a row where two
fields share a column; `--wide`: one column each, names and values in full). Prices at 4 dp here; exact in files."""

from __future__ import annotations

from datetime import UTC
from decimal import Decimal
from typing import Any

from pipelines.cli.fitted import Column, Printer, printed

SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[Decimal]) -> str:
    low, high = min(values), max(values)
    span = high - low
    steps = len(SPARKS) - 1
    return "".join(SPARKS[int((v - low) / span * steps) if span else steps // 2] for v in values)


def change_cells(r: dict[str, Any]) -> dict[str, Any]:
    """A change feed row with what its table prints: who, the values before and after, the move in percent."""
    offering = r["offering"] or r["source_id"]
    price = r["change"] == "price"
    pct = "" if r["change_pct"] is None else f"{r['change_pct']:+}%"
    style = "green" if pct.startswith("-") else "red" if pct.startswith("+") else ""
    return {
        **r,
        "when": f"{r['changed_at'].astimezone(UTC):%Y-%m-%d %H:%M}",
        "who": f"{r['provider']} {offering}" if r["provider"] and r["provider"] != "AWS" else offering,
        "where": r["region"] if r["provider"] else "",
        "old": printed(r["old_usd_per_accelerator_hour"], 4) if price else (r["old_value"] or ""),
        "new": printed(r["new_usd_per_accelerator_hour"], 4) if price else (r["new_value"] or ""),
        "pct": f"[{style}]{pct}[/]" if style else pct,
    }


CHANGE_COLUMNS = [
    Column("when", "when (UTC)"),
    Column("change", "change"),
    Column("who", "offering", narrow=False),
    Column("price_kind", "kind", narrow=False),
    Column("where", "region", narrow=False),
    Column("who_kind_where", "offering\nkind, region", keep=30, wide=False,
           cell=lambda r: f"{r['who']}\n{', '.join(filter(None, [r['price_kind'], r['where']]))}"),
    Column("old", "old", narrow=False),
    Column("new", "new", narrow=False),
    Column("old_new", "old\nnew", keep=16, wide=False, cell=lambda r: f"{r['old']}\n{r['new']}"),
    Column("pct", "change %", figure=True),
    Column("source_id", "source", narrow=False),
]  # fmt: skip


def print_changes(show: Printer, rows: list[dict[str, Any]], title: str) -> None:
    show.table(title, [change_cells(r) for r in rows], CHANGE_COLUMNS)


def two_lines(first: str, second: str) -> Any:
    return lambda r: f"{r[first]}\n{r[second]}"


WHO = [
    Column("provider", "provider", narrow=False),
    Column("offering", "offering", narrow=False),
    Column("price_kind", "kind", narrow=False),
    Column("region", "region", narrow=False),
    Column("provider_offering", "provider\noffering", keep=26, wide=False, cell=two_lines("provider", "offering")),
    Column("kind_region", "kind\nregion", keep=40, wide=False, cell=two_lines("price_kind", "region")),
]
TREND_COLUMNS = [
    *WHO,
    Column("first", "first", places=4),
    Column("now", "now", places=4),
    Column("min", "min", places=4, narrow=False),
    Column("max", "max", places=4, narrow=False),
    Column("versions", "versions", short="vers.", places=0),
    Column("trend", "trend"),
]
TIMELINE_COLUMNS = [
    *WHO,
    Column("valid_from", "valid from (UTC)", narrow=False),
    Column("valid_to", "valid to", narrow=False),
    Column("valid", "valid from\nvalid to (UTC)", wide=False, cell=two_lines("valid_from", "valid_to")),
    Column("usd_per_accelerator_hour", "USD/accel-h", places=4),
    Column("stock_status", "stock"),
]


def print_history(show: Printer, rows: list[dict[str, Any]], offering: str) -> None:
    """Per offering, kind and region: a trend row (first, now, min, max, a sparkline) and its versions."""
    series: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for r in rows:
        key = (r["provider"], r["offering"], r["price_kind"], r["region"] or "not stated")
        series.setdefault(key, []).append(r)
    trend, timeline = [], []
    for (provider, name, kind, region), versions in series.items():
        who = {"provider": provider, "offering": name, "price_kind": kind, "region": region}
        prices = [v["usd_per_accelerator_hour"] for v in versions]
        gone = "" if versions[-1]["valid_to"] is None else " (gone)"
        trend.append({**who, "first": prices[0], "now": prices[-1], "min": min(prices), "max": max(prices),
                      "versions": len(prices), "trend": sparkline(prices) + gone})  # fmt: skip
        for v in versions:
            to = "open" if v["valid_to"] is None else printed(v["valid_to"])
            timeline.append({**v, **who, "valid_from": printed(v["valid_from"]), "valid_to": to})
    show.table(f"{offering}: USD per accelerator-hour (GPU-hour), excluding tax, per version", trend, TREND_COLUMNS)
    show.table(f"{offering}: price timeline (valid from → to; open = current)", timeline, TIMELINE_COLUMNS)
