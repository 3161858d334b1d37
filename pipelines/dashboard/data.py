"""What each page shows, read from the snapshot as text rows (figures keep DuckDB's DECIMAL digits)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path

import duckdb

from pipelines.dashboard import queries, value_page
from pipelines.dashboard.decisions import Decision, decisions
from pipelines.dashboard.deployment_page import deployment
from pipelines.dashboard.figures import TIME
from pipelines.dashboard.filters import Filter, filters_of
from pipelines.dashboard.front_page import HEADLINE_AWS, HEADLINE_GPU, OFFERS
from pipelines.dashboard.tables import Chart, Filtered, Table, charts, filtered, table, text, view_exists
from warehouse.db import connect
from warehouse.queries import one_row


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
    offers: Filtered
    cheapest: Table
    by_region: Filtered | None
    aws_charts: list[Chart]
    gpu_charts: list[Chart]
    pricelist_charts: list[Chart]
    value_side_by_side: Table
    value: Filtered
    freshness: Table
    quarantine: Table
    dictionary: list[DictionaryEntry]
    deployment: Filtered | None = None  # deployment_costs, once pilots and a traffic profile have landed
    break_even: Table | None = None
    deployment_charts: list[Chart] = field(default_factory=list)
    decisions: list[Decision] | None = None  # one page per workload; none from a snapshot before decision_gate

    @property
    def featured(self) -> Chart | None:
        """The AWS chart the front page shows: the longest history in whole days (a backfilled price list's runs
        for months), then the one with the most price versions (the liveliest)."""
        return max(self.aws_charts + self.pricelist_charts, key=lambda c: (c.days, len(c.points)), default=None)

    @property
    def history_filters(self) -> list[Filter]:
        """The history page's filters, over every chart's points: all price kinds by default (a history follows
        each offering, not only the on-demand ones)."""
        return filters_of(p for c in self.aws_charts + self.pricelist_charts + self.gpu_charts for p in c.points)


def dictionary(con: duckdb.DuckDBPyConnection) -> list[DictionaryEntry]:
    """The COMMENT ON text of every view and table, with each column's type and comment."""
    found = table(con, "dictionary", queries.DICTIONARY)
    entries = []
    for (kind, name, comment), rows in groupby(found.rows, key=lambda r: (r[0], r[1], r[2])):
        entries.append(DictionaryEntry(kind, name, comment, [row[3:] for row in rows]))
    return entries


def read_site_data(snapshot: Path | str) -> SiteData:
    with connect(snapshot, read_only=True) as con:
        newest = one_row(con, f"SELECT {TIME.format(col='max(fetched_at)')} FROM fetch_log")[0]
        return SiteData(
            snapshot=str(snapshot),
            generated_from=text(newest),
            headline_aws=table(con, "headline-aws", HEADLINE_AWS),
            headline_gpu=table(con, "headline-gpu", HEADLINE_GPU),
            offers=filtered(table(con, "offers", OFFERS), kind="on_demand", hidden=1, units=True),
            cheapest=table(con, "cheapest", queries.CHEAPEST),
            # aws_prices_by_region arrives with the regional price lists; until then the page says so.
            by_region=by_region(con) if view_exists(con, "aws_prices_by_region") else None,
            aws_charts=charts(con, "aws-history", queries.AWS_HISTORY),
            gpu_charts=charts(con, "gpu-history", queries.GPU_HISTORY),
            pricelist_charts=charts(con, "pricelist-history", queries.PRICELIST_HISTORY),
            value_side_by_side=table(con, "value-side-by-side", value_page.SIDE_BY_SIDE),
            value=filtered(table(con, "value", value_page.ROWS), kind="on_demand", hidden=1),
            freshness=table(con, "freshness", queries.FRESHNESS),
            quarantine=table(con, "quarantine", queries.QUARANTINE),
            dictionary=dictionary(con),
            decisions=decisions(con) if view_exists(con, "decision_gate") else None,
            **deployment(con),
        )


def by_region(con: duckdb.DuckDBPyConnection) -> Filtered:
    """The price list per region: every row is AWS's, so the page filters by kind, region and accelerator."""
    return filtered(table(con, "by-region", queries.BY_REGION), kind="on_demand", hidden=1, leave_out=("provider",))
