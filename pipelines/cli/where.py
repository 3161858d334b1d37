"""`ratecard where ACCELERATOR`: the providers and regions that list an accelerator now, by price kind family, with
the cheapest current price and when each was first and last seen, from the published snapshot (read-only)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from pipelines.cli.options import SnapshotReadOption
from warehouse.files import DEFAULT_DB_PATH

NARROW_WIDTH = 100  # as find's table: fits a 100-column terminal


class WhereFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


def seen(at: datetime | None) -> str:
    return "" if at is None else f"{at.astimezone(UTC):%Y-%m-%d %H:%M}"


def where_cells(row: dict[str, Any]) -> dict[str, str]:
    """Two lines a row, so the table fits 100 columns: prices at 4 dp (exact in json and csv)."""
    from pipelines.cli.find_output import NARROW_OFFERING, money_4dp, place, shortened

    model = " ".join(filter(None, [row["accelerator_model"], row["accelerator_variant"]]))
    price = row["cheapest_usd_per_accelerator_hour"]
    return {
        "provider\nkind": f"{row['provider']}\n{row['price_kind_family']}",
        "region": place(row, wide=True),
        "accelerator\noffering": f"{model}\n{shortened(row['cheapest_offering'] or '', NARROW_OFFERING)}",
        "offers\nnow": str(row["offers_now"]),
        "cheapest\nUSD/accel-h": "not listed" if price is None else money_4dp(price),
        "first seen\nlast seen": f"{seen(row['first_seen_at'])}\n{seen(row['last_seen_at'])}",
    }


def print_where(console: Console, rows: list[dict[str, Any]], accelerator: str, include_gone: bool) -> None:
    listed = sum(1 for r in rows if r["listed_now"])
    gone = f" and {len(rows) - listed} that no longer list it" if include_gone else ""
    table = Table(
        title=f"Where {accelerator} is listed: {listed} provider, region and kind{'' if listed == 1 else 's'}{gone};"
        " USD per accelerator-hour excluding tax, the cheapest offering per kind first; times UTC",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    cells = [where_cells(r) for r in rows]
    for name in cells[0] if cells else ["provider\nkind", "region"]:
        figure = name.startswith(("offers", "cheapest\nUSD"))
        table.add_column(name, justify="right" if figure else "left")
    for row in cells:
        table.add_row(*row.values())
    console.print(table, width=min(console.width, NARROW_WIDTH))
    if not rows:
        console.print(f"no provider lists {accelerator} now" + ("" if include_gone else "; --all shows past listings"))


def register(app: typer.Typer, console: Console) -> None:
    @app.command("where")
    def where(
        accelerator: Annotated[
            str, typer.Argument(help="Model by any name, as find takes it: trn2, Trainium2, H100, 'h100 sxm'.")
        ],
        include_gone: Annotated[
            bool, typer.Option("--all", help="Also the providers, regions and kinds that no longer list it.")
        ] = False,
        fmt: Annotated[WhereFormat, typer.Option("--format", help="table, json or csv.")] = WhereFormat.table,
        db: SnapshotReadOption = DEFAULT_DB_PATH,
        wait: Annotated[float, typer.Option("--wait", min=0, help="Seconds to wait for the database.")] = 30.0,
    ) -> None:
        """Where an accelerator can be had: the providers and regions that list it now, by price kind, with the
        cheapest current price and when each was first and last seen (region 'not stated' is never assumed)."""
        from pipelines.cli.formats import OutputFormat, write_rows
        from pipelines.offers.availability import where_in_snapshot

        found = where_in_snapshot(db, accelerator, include_gone=include_gone, wait_s=wait)
        if fmt is WhereFormat.table:
            print_where(console, found.to_pylist(), accelerator, include_gone)
        else:
            write_rows(found, OutputFormat(fmt.value), None, "rows")
