"""The decision pages: each workload's steps and verdict as `ratecard decide` gives them (pipelines.decide), one
page per workload, each step a table titled with the view its rows are."""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

from pipelines.dashboard.tables import Table
from pipelines.decide.render import decision_file_name, sections, text
from pipelines.decide.steps import gather, workloads
from pipelines.decide.verdict import decide
from pipelines.fetch.offline import shown_source


@dataclass
class Step:
    title: str
    view: str
    table: Table


@dataclass
class Decision:
    """One workload's page: its verdict, the rule that decided it, and every step's rows."""

    workload: str
    work: str
    page: str
    verdict: str
    rule: str
    reason: str
    missing: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)


def cell(column: str, value: object) -> str:
    shown = text(value)
    return shown_source(shown) if column in ("source_url", "page_url") else shown


def decision(con: duckdb.DuckDBPyConnection, workload: str) -> Decision:
    steps = gather(con, workload)
    verdict = decide(steps)
    page = Decision(
        workload, steps.work, decision_file_name(workload, "html", prefix="decision-"), verdict.verdict,
        verdict.rule, verdict.reason, verdict.missing, verdict.flags,
    )  # fmt: skip
    for section in sections(steps):
        rows = [[cell(c, row.get(c)) for c in section.columns] for row in section.rows]
        page.steps.append(Step(section.title, section.view, Table(section.step, list(section.columns.values()), rows)))
    return page


def decisions(con: duckdb.DuckDBPyConnection) -> list[Decision]:
    return [decision(con, workload) for workload in workloads(con)]
