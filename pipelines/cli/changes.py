"""`ratecard changes` and `ratecard history`: the change feed and one offering's price timeline, as tables fitted to
100 columns (`changes_tables.py`) or as JSON, CSV or Parquet with every figure exact (`formats.py`)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from pipelines.cli.formats import FormatOption, OutputFormat, OutputOption, WideOption, check_output
from pipelines.cli.options import SnapshotReadOption
from pipelines.cli.reporting import Mistake
from pipelines.offers.history import CHANGES, HISTORY, OFFERING_NAMES, over_threshold
from warehouse.files import DEFAULT_DB_PATH, WarehouseMissing
from warehouse.target import exists

DURATION = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 604800}
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


def query(db: Path, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = query_arrow(db, sql, params).to_pylist()
    return rows


def query_arrow(db: Path, sql: str, params: dict[str, Any]) -> Any:
    """The rows as an Arrow table (DECIMALs exact), from the published snapshot."""
    import duckdb

    from pipelines.cli.show import reading
    from warehouse.queries import arrow_table

    if not exists(db):
        raise WarehouseMissing(db, "does not exist yet")
    with reading(db) as con:
        try:
            return arrow_table(con, sql, params)
        except duckdb.CatalogException as exc:  # a snapshot published by an earlier release
            raise WarehouseMissing(db, f"its published snapshot predates this view ({exc})") from exc


def register(app: typer.Typer, console: Console) -> None:
    @app.command()
    def changes(
        since: Annotated[str, typer.Option("--since", help="How far back: 7d, 12h, 30m, 2w.")] = "7d",
        min_change: Annotated[str, typer.Option("--min-change", help="Price moves of at least this, e.g. 5%.")] = "0%",
        fmt: FormatOption = OutputFormat.table,
        output: OutputOption = None,
        wide: WideOption = False,
        db: DbOption = DEFAULT_DB_PATH,
    ) -> None:
        """What moved: price changes, listings added or removed, stock flips and page shape changes."""
        import pyarrow as pa

        from pipelines.cli.changes_tables import print_changes
        from pipelines.cli.fitted import Printer
        from pipelines.cli.formats import write_rows

        check_output(fmt, output, "changes.parquet")
        start, min_pct = window_start(since, datetime.now(UTC)), parse_percent(min_change)
        found = query_arrow(db, CHANGES, {"since": start})
        # Indices typed: an empty list alone is Arrow's null type, which `take` refuses.
        kept = found.take(
            pa.array([i for i, r in enumerate(found.to_pylist()) if over_threshold(r, min_pct)], pa.int64())
        )
        if fmt is not OutputFormat.table:
            write_rows(kept, fmt, output, "changes")
            return
        show = Printer(console, wide=wide)
        title = f"Changes since {start:%Y-%m-%d %H:%M} UTC (USD per accelerator-hour, excl. tax)"
        print_changes(show, kept.to_pylist(), title)
        if not kept.num_rows:
            show("no changes in that window")

    @app.command()
    def history(
        offering: Annotated[str, typer.Argument(help="An instance type (trn1.32xlarge) or a GPU model (H100).")],
        kind: Annotated[str | None, typer.Option("--kind", help="Only this price kind (on_demand, spot, ...).")] = None,
        region: Annotated[str | None, typer.Option("--region", help="Only this region.")] = None,
        fmt: FormatOption = OutputFormat.table,
        output: OutputOption = None,
        wide: WideOption = False,
        db: DbOption = DEFAULT_DB_PATH,
    ) -> None:
        """The price timeline of one instance type or GPU model, with a sparkline per offering."""
        from pipelines.cli.changes_tables import print_history
        from pipelines.cli.fitted import Printer
        from pipelines.cli.formats import write_rows

        check_output(fmt, output, "history.parquet")
        found = query_arrow(db, HISTORY, {"offering": offering, "kind": kind, "region": region})
        if not found.num_rows:
            raise no_history(db, offering, kind, region)
        if fmt is OutputFormat.table:
            print_history(Printer(console, wide=wide), found.to_pylist(), offering)
        else:
            write_rows(found, fmt, output, "price versions")
