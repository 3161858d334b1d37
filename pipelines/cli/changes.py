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
from warehouse.files import DEFAULT_DB_PATH, WarehouseMissing
from warehouse.target import exists

DURATION = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 604800}
CHANGES = """
SELECT changed_at, change, source_id, provider, offering, model, price_kind, coalesce(region, 'not stated') AS region,
       old_usd_per_accelerator_hour, new_usd_per_accelerator_hour, change_pct, old_value, new_value
FROM price_changes
WHERE changed_at >= $since
ORDER BY changed_at DESC, source_id, offering, change
"""
HISTORY = """
SELECT * FROM (
    SELECT 'AWS' AS provider, instance_type AS offering, price_kind, region, usd_per_accelerator_hour,
           CAST(NULL AS VARCHAR) AS stock_status, valid_from, valid_to, source_url
    FROM aws_instance_price_history WHERE lower(instance_type) = lower($offering)
    UNION ALL  -- the price list, per region; a reserved or Savings Plan term, payment (and class) are part of its kind
    SELECT 'AWS price list', instance_type,
           CASE WHEN lease_years IS NOT NULL
                THEN concat_ws(' ', price_kind, lease_years || 'y', purchase_option, offering_class)
                ELSE price_kind END,
           region_code, usd_per_accelerator_hour, NULL, valid_from, valid_to, source_url
    FROM aws_pricelist_price_history WHERE lower(instance_type) = lower($offering)
    UNION ALL
    SELECT provider, listing, price_kind, region, usd_per_gpu_hour, stock_status, valid_from, valid_to, source_url
    FROM gpu_listing_history WHERE lower(gpu_model) = lower($offering) OR lower(listing) = lower($offering)
)
-- A kind as the views name it (reserved_1y, compute_savings_plan_3y) also finds the price list's terms under it.
WHERE ($kind IS NULL OR price_kind = $kind OR starts_with(price_kind, $kind || ' ')
       OR starts_with(price_kind, regexp_replace($kind, '_(\\d+y)$', ' \\1') || ' '))
  AND ($region IS NULL OR lower(region) = lower($region))
ORDER BY provider, offering, price_kind, region NULLS FIRST, valid_from
"""
# Every name `history` answers to, for the nearest-name hint.
OFFERING_NAMES = """
SELECT DISTINCT instance_type AS name FROM aws_instance_price_history
UNION SELECT DISTINCT instance_type FROM aws_pricelist_price_history
UNION SELECT DISTINCT gpu_model FROM gpu_listing_history
"""
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
        from pipelines.orchestration.notify import over_threshold

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
