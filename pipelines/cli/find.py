"""`ratecard find`: the current offers of an accelerator, filtered by size, memory, region, kind, provider, price
and stock, cheapest first in the unit asked, from the published snapshot (read-only)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Annotated

import typer
from rich.console import Console

from pipelines.cli.formats import FormatOption, OutputFormat, OutputOption, WideOption, check_output
from pipelines.cli.options import SnapshotReadOption
from pipelines.offers.units import Per
from warehouse.files import DEFAULT_DB_PATH

LARGEST = Decimal(10) ** 15  # far above any price or memory, well inside DECIMAL(38, 18)


def amount(text: str) -> Decimal:
    """A price or memory figure typed by a user: a non-negative number, exactly as typed."""
    try:
        value = Decimal(text.replace(",", "").strip())
    except InvalidOperation:
        raise typer.BadParameter(f"{text!r} is not a number") from None
    if not value.is_finite() or value < 0 or value >= LARGEST:
        raise typer.BadParameter(f"{text!r} is out of range: a number from 0 below 10^15")
    return value


Amount = typer.Option  # the options below read their numbers with `amount`, never as float


def register(app: typer.Typer, console: Console) -> None:
    @app.command("find")
    def find(
        accelerator: Annotated[
            str | None,
            typer.Option("--accelerator", "--gpu", help="Model by any name: H100, 'h100 sxm', 'NVIDIA H100', trn2."),
        ] = None,
        count: Annotated[
            int | None, typer.Option("--count", min=1, max=1_000_000, help="At least N accelerators in one offering.")
        ] = None,
        total: Annotated[
            int | None,
            typer.Option("--total", min=1, max=1_000_000, help="N accelerators across offerings: how many, in all."),
        ] = None,
        memory_gib: Annotated[
            Decimal | None, Amount("--memory-gib", parser=amount, help="At least this memory per accelerator.")
        ] = None,
        region: Annotated[
            str, typer.Option("--region", help="A code (us-east-2), a name ('US East (Ohio)'), or any.")
        ] = "any",
        kind: Annotated[
            str,
            typer.Option(
                "--kind",
                help="on-demand, spot, reserved, savings-plans, capacity-block, serverless, sagemaker, community, "
                "one exact price kind (reserved_3y), or all.",
            ),
        ] = "on-demand",
        provider: Annotated[
            str | None, typer.Option("--provider", help="Only this provider (AWS, Lambda, ...).")
        ] = None,
        max_price: Annotated[
            Decimal | None, Amount("--max-price", parser=amount, help="At most this USD price in the --per unit.")
        ] = None,
        in_stock: Annotated[bool, typer.Option("--in-stock", help="Only offers stated to be in stock.")] = False,
        per: Annotated[
            Per, typer.Option("--per", help="Price unit and order: accel-hour, instance-hour, month (730 h).")
        ] = Per.accel_hour,
        fmt: FormatOption = OutputFormat.table,
        output: OutputOption = None,
        wide: WideOption = False,
        db: SnapshotReadOption = DEFAULT_DB_PATH,
        wait: Annotated[float, typer.Option("--wait", min=0, help="Seconds to wait for the database.")] = 30.0,
    ) -> None:
        """Find offers of an accelerator: cheapest first in the --per unit, with kind, terms, region, stock, data
        age and source (region 'not stated' and stock unknown are never assumed)."""
        from pipelines.cli.find_output import print_table
        from pipelines.cli.formats import write_rows
        from pipelines.offers.search import OfferSearch, find_in_snapshot

        check_output(fmt, output, "offers.parquet")
        search = OfferSearch(
            accelerator=accelerator,
            count=count,
            total=total,
            memory_gib=memory_gib,
            region=region,
            kind=kind,
            provider=provider,
            max_price=max_price,
            in_stock=in_stock,
            per=per,
        )
        offers = find_in_snapshot(db, search, wait_s=wait)
        if fmt is OutputFormat.table:
            print_table(console, offers, search, wide=wide)
        else:
            write_rows(offers, fmt, output, "offers")
