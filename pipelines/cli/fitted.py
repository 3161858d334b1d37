"""Terminal tables that fit 100 columns: each column says whether the narrow table keeps it, how short its name may
get there, and the places its figures are printed at; `--wide` shows every column with names in full. Figures are
rounded for reading only (half up, fixed point, never `0E-10`): JSON, CSV and Parquet carry them exactly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from rich.console import Console, RenderableType
from rich.table import Table

from pipelines.cli.formats import NARROW_WIDTH, WIDE_WIDTH
from pipelines.cli.terminal import PipedConsole

MOST_PLACES = 4  # a figure with no places of its own is trimmed, and rounded past this many


@dataclass(frozen=True)
class Column:
    key: str  # the row's field (as the view names it)
    header: str
    places: int | None = None  # a figure, printed at this many decimal places (half up) and right-aligned
    narrow: bool = True  # kept in the 100-column table
    wide: bool = True  # kept with --wide (False: a narrow column that joins two of the wide ones)
    keep: int | None = None  # the 100-column table shortens a name to this many characters
    short: str | None = None  # the 100-column table's header, when the full one is too wide
    cell: Callable[[dict[str, Any]], str] | None = None  # a cell made from the whole row
    figure: bool = False  # right-aligned and never wrapped, though printed by `cell`
    whole: bool = False  # words never wrapped (a verdict): the other names give way


def printed(value: Any, places: int | None = None) -> str:
    """A value as the table prints it: Decimals in fixed point at `places` (else trimmed, at most 4), times to the
    second in UTC, nothing as empty."""
    if value is None:
        return ""
    if isinstance(value, Decimal):
        if places is None:
            trimmed = value.normalize()
            places = min(max(-trimmed.as_tuple().exponent, 0), MOST_PLACES)  # type: ignore[operator]
        return format(value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP), "f")
    if isinstance(value, datetime):
        return f"{value.astimezone(UTC):%Y-%m-%d %H:%M:%S}" if value.tzinfo else f"{value:%Y-%m-%d %H:%M:%S}"
    return str(value)


def shortened(name: str, keep: int | None) -> str:
    return name if keep is None or len(name) <= keep else name[: keep - 1] + "…"


def cell_text(row: dict[str, Any], column: Column, wide: bool) -> str:
    text = column.cell(row) if column.cell else printed(row[column.key], column.places)
    return text if wide else "\n".join(shortened(line, column.keep) for line in text.split("\n"))


def fitted_table(title: str, rows: list[dict[str, Any]], columns: list[Column], *, wide: bool) -> Table:
    """The rows under the columns the width keeps; in the narrow table a column with no value in any row is left
    out (there is nothing to read in it)."""
    cells = {c.key: [cell_text(r, c, wide) for r in rows] for c in columns if (c.wide if wide else c.narrow)}
    shown = [c for c in columns if c.key in cells and (wide or not rows or any(cells[c.key]))]
    table = Table(title=title, title_justify="left")
    for column in shown:
        figure = column.places is not None or column.figure
        header = column.header if wide else (column.short or column.header)
        # Figures never wrap (a price cut in two is misread); names wrap when the width is short, or with --wide not.
        table.add_column(header, justify="right" if figure else "left", no_wrap=figure or column.whole or wide)
    for index in range(len(rows)):
        table.add_row(*(cells[c.key][index] for c in shown))
    return table


class Printer:
    """Prints tables and lines within 100 columns (or the terminal, if narrower), or as wide as they are."""

    def __init__(self, console: Console, *, wide: bool) -> None:
        self.wide = wide
        self.console = PipedConsole(file=console.file, width=WIDE_WIDTH) if wide else console
        self.width = None if wide else min(console.width, NARROW_WIDTH)

    def __call__(self, renderable: RenderableType) -> None:
        self.console.print(renderable, width=self.width)

    def table(self, title: str, rows: list[dict[str, Any]], columns: list[Column]) -> None:
        self(fitted_table(title, rows, columns, wide=self.wide))
