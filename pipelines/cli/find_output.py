"""How `ratecard find` shows offers in a terminal: a table that fits 100 columns (every column with --wide); the
files (JSON, CSV, Parquet) are `formats.py`'s."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pyarrow as pa
from rich import box
from rich.console import Console
from rich.table import Table

from pipelines.cli.formats import NARROW_WIDTH, WIDE_WIDTH
from pipelines.cli.formats import exact_text as text
from pipelines.cli.terminal import PipedConsole
from pipelines.offers.search import OfferSearch
from pipelines.offers.units import Per

UNIT_HEADERS = {
    "usd_per_accelerator_hour": "USD/accel-h",
    "usd_per_instance_hour": "USD/offering-h",
    "usd_per_offering_month_730h": "USD/month (730 h)",
    "total_usd_per_hour": "total USD/h",
    "total_usd_per_month_730h": "total USD/month (730 h)",
}
NARROW_OFFERING = 24  # characters of an offering's name the narrow table keeps
FOUR_DP = Decimal("0.0001")
ONE_DP = Decimal("0.1")


def age(fetched_at: datetime, now: datetime) -> str:
    minutes = int((now - fetched_at).total_seconds() // 60)
    if minutes < 60:
        return f"{max(minutes, 0)}m"
    return f"{minutes // 60}h" if minutes < 48 * 60 else f"{minutes // (24 * 60)}d"


def shortened(name: str, keep: int) -> str:
    return name if len(name) <= keep else name[: keep - 1] + "…"


def place(row: dict[str, Any], wide: bool) -> str:
    """The region as stated, with its code beside a name ('US East (Ohio) (us-east-2)'), or 'not stated'."""
    region: str | None = row["region"]
    code: str | None = row["region_code"]
    if region is None:
        return "not stated"
    if not wide and code:
        return code
    return f"{region} ({code})" if code and code != region else region


def compact_terms(terms: str | None) -> str:
    """'billed per day per instance' -> 'per day, instance': the narrow table's words for how a listing bills."""
    if terms is None:
        return ""
    return terms.replace("billed per ", "per ").replace(" per instance", ", instance").replace(" per GPU", ", GPU")


def money_4dp(value: Decimal) -> str:
    return str(value.quantize(FOUR_DP, rounding=ROUND_HALF_UP))


def wide_cells(row: dict[str, Any], search: OfferSearch) -> dict[str, str]:
    """Every column, names and figures in full."""
    shown = {name: text(row[name]) for name in row if name not in ("region", "region_code", "stock_status")}
    shown["region"] = place(row, wide=True)
    shown["stock_status"] = row["stock_status"] or "unknown"
    return {UNIT_HEADERS.get(name, name): value for name, value in shown.items()}


def narrow_cells(row: dict[str, Any], search: OfferSearch, now: datetime) -> dict[str, str]:
    """Two lines a row in 100 columns: the offering's name shortened, prices at 4 dp (exact in --wide and files)."""
    model = " ".join(filter(None, [row["accelerator_model"] or row["offering"], row["accelerator_variant"]]))
    memory = row["accelerator_memory_gib"]
    shown = {
        "provider\noffering": f"{row['provider']}\n{shortened(row['offering'], NARROW_OFFERING)}",
        "accelerators\nGiB each": f"{text(row['accelerators_per_offering']).removesuffix('.00')}x {model}\n"
        + ("" if memory is None else str(memory.quantize(ONE_DP, rounding=ROUND_HALF_UP))),
        "kind\nterms": f"{row['price_kind']}\n{compact_terms(row['terms'])}",
        "region\nstock": f"{place(row, wide=False)}\n{row['stock_status'] or 'unknown'}",
        UNIT_HEADERS[search.price_column] + "\n(4 dp)": money_4dp(row[search.price_column]),
    }
    if search.total is not None:
        shown[f"offerings\n{UNIT_HEADERS[search.total_column]}"] = (
            f"{row['offerings_needed']}\n{money_4dp(row[search.total_column])}"
        )
    shown["age\nsource"] = f"{age(row['fetched_at'], now)}\n{row['source_id']}"
    return shown


def print_table(console: Console, offers: pa.Table, search: OfferSearch, *, wide: bool) -> None:
    now = datetime.now(UTC)
    rows = [wide_cells(r, search) if wide else narrow_cells(r, search, now) for r in offers.to_pylist()]
    unit = {Per.accel_hour: "per accelerator-hour", Per.instance_hour: "per offering-hour"}.get(
        search.per, "per offering-month of 730 hours"
    )
    table = Table(
        title=f"{len(rows)} offers, USD {unit} excluding tax, cheapest first",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for name in rows[0] if rows else ["provider\noffering"]:
        figure = name.startswith(("USD", "total", "offerings"))
        table.add_column(name, justify="right" if figure else "left", overflow="ellipsis", no_wrap=wide)
    for row in rows:
        table.add_row(*row.values())
    # Wide: as wide as the columns need (a terminal folds it, a pager or file keeps each row on one line).
    if wide:
        console = PipedConsole(file=console.file, width=WIDE_WIDTH)
    console.print(table, width=None if wide else min(console.width, NARROW_WIDTH))
