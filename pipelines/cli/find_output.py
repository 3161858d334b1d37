"""How `ratecard find` shows offers: a table that fits 100 columns (every column with --wide), or the rows as JSON,
CSV or Parquet with every figure exact (money as strings in JSON, DECIMAL in Parquet) and names in full."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import typer
from rich import box
from rich.console import Console
from rich.table import Table

from pipelines.cli.terminal import PipedConsole
from pipelines.offers.plain import exact_rows
from pipelines.offers.search import OfferSearch, Per

UNIT_HEADERS = {
    "usd_per_accelerator_hour": "USD/accel-h",
    "usd_per_instance_hour": "USD/offering-h",
    "usd_per_offering_month_730h": "USD/month (730 h)",
    "total_usd_per_hour": "total USD/h",
    "total_usd_per_month_730h": "total USD/month (730 h)",
}
NARROW_OFFERING = 24  # characters of an offering's name the narrow table keeps
NARROW_WIDTH = 100  # the narrow table fits a 100-column terminal
WIDE_WIDTH = 1000
FOUR_DP = Decimal("0.0001")
ONE_DP = Decimal("0.1")


def text(value: Any) -> str:
    """A cell as text, exactly: a Decimal in fixed point with its trailing zeros trimmed (never fewer than cents)."""
    if value is None:
        return ""
    if isinstance(value, Decimal):
        whole, _, fraction = format(value.normalize(), "f").partition(".")
        return f"{whole}.{fraction.ljust(2, '0')}"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


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


def plain_rows(offers: pa.Table) -> list[dict[str, Any]]:
    """Rows with every Decimal and time as exact text, the other values as they are."""
    return exact_rows(offers.to_pylist())


def write_rows(offers: pa.Table, fmt: str, output: Path | None) -> None:
    if fmt == "parquet":
        assert output is not None  # the command asks for it first
        pq.write_table(offers, output)
        return
    if fmt == "json":
        body = json.dumps(plain_rows(offers), indent=2) + "\n"
    else:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=offers.column_names, lineterminator="\n")
        writer.writeheader()
        writer.writerows(plain_rows(offers))
        body = buffer.getvalue()
    if output is None:
        typer.echo(body, nl=False)
    else:
        output.write_text(body, encoding="utf-8")
        typer.echo(f"wrote {offers.num_rows} offers to {output}", err=True)
