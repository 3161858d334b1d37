"""What each page shows, read from the snapshot as text rows (figures keep DuckDB's DECIMAL digits)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from itertools import groupby
from pathlib import Path
from typing import Any

import duckdb

from pipelines.dashboard import queries
from pipelines.dashboard.decisions import Decision, decisions
from pipelines.dashboard.front_page import HEADLINE_AWS, HEADLINE_GPU, OFFERS, Offers, offers
from pipelines.dashboard.tables import Table
from pipelines.fetch.offline import shown_source
from warehouse.db import connect
from warehouse.queries import one_row


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
    def one_day(self) -> bool:
        """A time chart whose points all fall within 24 hours: it shows a level, not yet a trend, and says so."""
        return self.days == 0 and any("point_at" in p for p in self.points)


@dataclass
class DictionaryEntry:
    kind: str
    name: str
    comment: str
    columns: list[list[str]] = field(default_factory=list)


@dataclass
class SiteData:
    snapshot: str
    generated_from: str
    headline_aws: Table
    headline_gpu: Table
    offers: Offers
    cheapest: Table
    by_region: Table | None
    aws_charts: list[Chart]
    gpu_charts: list[Chart]
    pricelist_charts: list[Chart]
    freshness: Table
    quarantine: Table
    dictionary: list[DictionaryEntry]
    deployment: Table | None = None  # deployment_costs, once pilots and a traffic profile have landed
    break_even: Table | None = None
    deployment_charts: list[Chart] = field(default_factory=list)
    decisions: list[Decision] | None = None  # one page per workload; none from a snapshot before decision_gate

    @property
    def featured(self) -> Chart | None:
        """The AWS chart the front page shows: the longest history in whole days (a backfilled price list's runs
        for months), then the one with the most price versions (the liveliest)."""
        return max(self.aws_charts + self.pricelist_charts, key=lambda c: (c.days, len(c.points)), default=None)


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


def dictionary(con: duckdb.DuckDBPyConnection) -> list[DictionaryEntry]:
    """The COMMENT ON text of every view and table, with each column's type and comment."""
    found = table(con, "dictionary", queries.DICTIONARY)
    entries = []
    for (kind, name, comment), rows in groupby(found.rows, key=lambda r: (r[0], r[1], r[2])):
        entries.append(DictionaryEntry(kind, name, comment, [row[3:] for row in rows]))
    return entries


def view_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return bool(one_row(con, queries.VIEW_EXISTS, {"name": name})[0])


def read_site_data(snapshot: Path | str) -> SiteData:
    with connect(snapshot, read_only=True) as con:
        newest = one_row(con, f"SELECT {queries.TS.format(col='max(fetched_at)')} FROM fetch_log")[0]
        return SiteData(
            snapshot=str(snapshot),
            generated_from=text(newest),
            headline_aws=table(con, "headline-aws", HEADLINE_AWS),
            headline_gpu=table(con, "headline-gpu", HEADLINE_GPU),
            offers=offers(table(con, "offers", OFFERS)),
            cheapest=table(con, "cheapest", queries.CHEAPEST),
            # aws_prices_by_region arrives with the regional price lists; until then the page says so.
            by_region=table(con, "by-region", queries.BY_REGION) if view_exists(con, "aws_prices_by_region") else None,
            aws_charts=charts(con, "aws-history", queries.AWS_HISTORY),
            gpu_charts=charts(con, "gpu-history", queries.GPU_HISTORY),
            pricelist_charts=charts(con, "pricelist-history", queries.PRICELIST_HISTORY),
            freshness=table(con, "freshness", queries.FRESHNESS),
            quarantine=table(con, "quarantine", queries.QUARANTINE),
            dictionary=dictionary(con),
            decisions=decisions(con) if view_exists(con, "decision_gate") else None,
            **deployment(con),
        )


def deployment(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The deployment page's tables and cost curves; none from a snapshot made before the deployment views."""
    if not view_exists(con, "deployment_costs"):
        return {}
    return {
        "deployment": table(con, "deployment", queries.DEPLOYMENT),
        "break_even": table(con, "break-even", queries.BREAK_EVEN),
        "deployment_charts": charts(con, "deployment-curve", queries.DEPLOYMENT_CURVES),
    }
