"""Tables and charts as the templates draw them, read from the snapshot as text (figures keep DuckDB's DECIMAL
digits)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import Any

import duckdb

from pipelines.dashboard.filters import ALL, FILTER_FIELDS, HOURS, Filter, filters_of
from pipelines.fetch.offline import shown_source
from warehouse.queries import one_row

VIEW_EXISTS = "SELECT count(*) FROM duckdb_views() WHERE NOT internal AND view_name = $name"


@dataclass
class Table:
    """Column names and text cells (figures keep DuckDB's DECIMAL digits)."""

    id: str
    columns: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class Filtered:
    """A table under filters. Its first `hidden` columns are for the filters only; with `units`, a figure column
    whose name ends in _hour, _day or _month shows in that unit only."""

    table: Table
    filters: list[Filter]
    hidden: int = 0
    units: bool = False

    @property
    def shown_columns(self) -> list[str]:
        return self.table.columns[self.hidden :]

    def unit_of(self, column: str) -> str | None:
        """The unit a figure column is in ("hour", "day", "month"), or None for a column every unit shows."""
        unit = column.rpartition("_")[2]
        return unit if self.units and column.startswith("usd_per_") and unit in HOURS else None

    def values(self, row: list[str]) -> dict[str, str]:
        """A row's value of each filter, as the page marks the row."""
        return {f.name: row[self.table.columns.index(f.field)] for f in self.filters}


def filtered(
    table: Table, *, kind: str = ALL, hidden: int = 0, units: bool = False, leave_out: tuple[str, ...] = ()
) -> Filtered:
    rows = (dict(zip(table.columns, row, strict=True)) for row in table.rows)
    return Filtered(table, filters_of(rows, kind=kind, leave_out=leave_out), hidden, units)


@dataclass
class Chart:
    """One history chart: its points (one series per `series` value) and how many series it draws."""

    id: str
    title: str
    points: list[dict[str, str]]
    series: int

    @property
    def days(self) -> int:
        """Whole days between its first and last point (0 for a cost curve, which has no time axis)."""
        stamps = [datetime.fromisoformat(p["point_at"].replace("Z", "+00:00")) for p in self.points if "point_at" in p]
        return (max(stamps) - min(stamps)).days if stamps else 0

    @property
    def filtered(self) -> bool:
        """Whether its points carry the page filters' fields, so the filters can pick its lines."""
        return bool(self.points) and all(f in self.points[0] for f in FILTER_FIELDS)

    @property
    def coinciding(self) -> list[list[str]]:
        """Groups of series drawn on exactly the same points: one line lies on the other, so the caption names them."""
        drawn: dict[tuple[tuple[str, str], ...], list[str]] = {}
        for series, points in groupby(self.points, key=lambda p: p["series"]):
            key = tuple((p.get("point_at", p.get("utilisation_pct", "")), p["usd"]) for p in points)
            drawn.setdefault(key, []).append(series)
        return [names for names in drawn.values() if len(names) > 1]

    @property
    def one_day(self) -> bool:
        """A time chart whose points all fall within 24 hours: it shows a level, not yet a trend, and says so."""
        return self.days == 0 and any("point_at" in p for p in self.points)


SOURCE_COLUMNS = {"source_url", "url", "billing_terms_url"}  # shown by what they name (pipelines.fetch.offline)


def text(value: Any) -> str:
    return "" if value is None else str(value)


def table(con: duckdb.DuckDBPyConnection, table_id: str, query: str) -> Table:
    cursor = con.execute(query)
    columns = [d[0] for d in cursor.description]
    rows = [[text(v) for v in row] for row in cursor.fetchall()]
    for at in [i for i, name in enumerate(columns) if name in SOURCE_COLUMNS]:
        for row in rows:
            row[at] = shown_source(row[at])
    return Table(table_id, columns, rows)


def charts(con: duckdb.DuckDBPyConnection, prefix: str, query: str) -> list[Chart]:
    """One chart per offering (AWS instance type, GPU model), its points grouped by series."""
    found = table(con, prefix, query)
    out = []
    for number, (title, rows) in enumerate(groupby(found.rows, key=lambda r: r[0])):
        points = [dict(zip(found.columns[1:], row[1:], strict=True)) for row in rows]
        out.append(Chart(f"{prefix}-{number}", title, points, len({p["series"] for p in points})))
    return out


def view_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return bool(one_row(con, VIEW_EXISTS, {"name": name})[0])
