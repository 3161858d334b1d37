"""Render the headline views as terminal tables (read-only: safe beside a running refresh's readers)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from rich.console import Console
from rich.table import Table

from warehouse.db import connect
from warehouse.queries import HEADLINE_PRICES, SOURCE_FRESHNESS, rows_as_dicts

PRICE_COLUMNS = {
    "instance_type": "instance",
    "accelerator": "accelerator",
    "accels": "accels",
    "accel_memory": "accel memory (as printed)",
    "price_kind": "price kind",
    "region": "region",
    "usd_per_instance_hour": "USD / instance-hour",
    "usd_per_accelerator_hour": "USD / accel-hour (exact)",
    "usd_per_accelerator_hour_4dp": "USD / accel-hour (4 dp)",
}


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        # Exact figures without the DECIMAL(38,18) tail of zeros.
        text = format(value.normalize(), "f")
        return text if "." in text else text + ".00"
    return str(value)


def rows_table(title: str, rows: list[dict], headers: dict[str, str] | None = None) -> Table:
    table = Table(title=title, title_justify="left")
    names = list(headers or (rows[0] if rows else {}))
    for name in names:
        numeric = bool(rows) and isinstance(rows[0][name], (int, Decimal)) and not isinstance(rows[0][name], bool)
        table.add_column((headers or {}).get(name, name), justify="right" if numeric else "left")
    for row in rows:
        table.add_row(*(_text(row[n]) for n in names))
    return table


def print_headline(console: Console, db: Path) -> None:
    with connect(db, read_only=True) as con:
        prices = rows_as_dicts(con, HEADLINE_PRICES)
        freshness = rows_as_dicts(con, SOURCE_FRESHNESS)
    console.print(rows_table("AWS accelerator prices: on-demand and Capacity Block, USD excluding tax "
                             "(per-accelerator figures derived: instance price / accelerators)",
                             prices, PRICE_COLUMNS))
    console.print(rows_table("Sources", freshness))
