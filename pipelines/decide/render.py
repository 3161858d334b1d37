"""A decision as text tables, Markdown for a design review, or JSON: the same steps, each titled with the view its
rows are, then the verdict and the rule that decided it."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict
from datetime import date, datetime
from decimal import Decimal
from typing import Any, NamedTuple

from rich.console import Console
from rich.table import Table

from pipelines.decide.steps import Steps
from pipelines.decide.verdict import Verdict

Columns = dict[str, str]
GATE: Columns = {"offering": "AWS candidate", "framework_path": "framework path", "gate": "gate", "reason": "why",
                 "lifecycle_phase": "SDK policy phase", "release": "release", "source_url": "source"}  # fmt: skip
PILOTS: Columns = {"offering": "offering", "price_kind": "price kind", "quality_passed": "quality",
                   "latency_met": "latency met", "conditions": "conditions", "priced": "priced",
                   "not_priced_because": "not priced because"}  # fmt: skip
TRAINING_PILOTS: Columns = {"offering": "offering", "price_kind": "price kind", "quality_reached": "target reached",
                            "target_metric": "target", "run_conditions": "conditions", "priced": "priced",
                            "not_priced_because": "not priced because"}  # fmt: skip
DEPLOYMENT: Columns = {"rank": "rank", "offering": "offering", "price_kind": "price kind", "billing": "billing",
                       "instances": "instances", "usd_per_hour": "USD/hour", "capacity_block_usd_per_hour":
                       "Capacity Block USD/hour", "monthly_usd": "USD a month", "not_comparable_because":
                       "not compared because"}  # fmt: skip
TRAINING: Columns = {"rank": "rank", "offering": "offering", "price_kind": "price kind", "instances": "instances",
                     "hours_to_target": "hours to target", "billed_hours": "billed hours", "usd_per_hour": "USD/hour",
                     "capacity_block_usd_per_hour": "Capacity Block USD/hour", "spend_to_target_usd": "USD to target",
                     "not_comparable_because": "not compared because"}  # fmt: skip
PAYBACK: Columns = {"candidate_offering": "candidate", "monthly_saving_usd": "monthly saving USD",
                    "one_time_cost_usd": "one-time USD", "months_to_payback": "months to payback",
                    "lifetime_months": "lifetime months", "verdict": "payback says"}  # fmt: skip
PLAN: Columns = {"one_time_cost_usd": "one-time USD", "monthly_maintenance_usd": "maintenance USD a month",
                 "monthly_volume": "runs a month", "lifetime_months": "lifetime months", "note": "note"}  # fmt: skip
CLAIMS: Columns = {"claim_text": "vendor claim (not your pilot; never used)", "page_url": "page"}
BENCHMARKS: Columns = {"claim_note": "what it is", "model": "model", "instance_type": "instance",
                       "neuron_release": "Neuron release", "conditions": "conditions", "throughput": "throughput",
                       "throughput_unit": "unit", "ttft_p50_ms": "TTFT P50 ms", "tpot_p50_ms": "TPOT P50 ms",
                       "latency_p50_ms": "latency P50 ms", "token_latency_p50_ms": "latency per token P50 ms",
                       "source_url": "source"}  # fmt: skip


def decision_file_name(workload: str, suffix: str, prefix: str = "") -> str:
    """The file a workload's decision is written to: its name where that is safe in a path and a URL, else a safe
    form of it and a short hash of the name, so two workloads never share a file."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", workload).strip("-.")
    if safe != workload:
        safe = f"{safe or 'workload'}-{hashlib.sha256(workload.encode()).hexdigest()[:8]}"
    return f"{prefix}{safe}.{suffix}"


def _shown(row: dict[str, Any], price_column: str) -> dict[str, Any]:
    """The row with its offering named by provider, and its price in the column of its kind: a Capacity Block rate
    is never shown where an on-demand rate would be."""
    shown = dict(row)
    if row.get("provider"):
        shown["offering"] = f"{row['provider']} {row['offering']}"
    if price_column in row:
        block = row.get("price_kind") == "capacity_block"
        shown["capacity_block_usd_per_hour" if block else "usd_per_hour"] = row[price_column]
    return shown


class Section(NamedTuple):
    step: str  # the Steps name (gate, pilots, bill, payback, claims, benchmarks)
    title: str
    view: str
    rows: list[dict[str, Any]]  # as shown: offerings named by provider, a Capacity Block rate in its own column
    columns: Columns


def sections(steps: Steps) -> list[Section]:
    """Each step as it is shown, in the guide's order."""
    training = steps.work == "training"
    price = "usd_per_offering_hour" if training else "usd_per_billed_hour"
    shown = {"pilots": "", "bill": price}  # the steps whose rows name offerings
    titled = [
        ("gate", "1. Software gate", GATE),
        ("pilots", "2. Pilot", TRAINING_PILOTS if training else PILOTS),
        ("bill", "3. Bill", TRAINING if training else DEPLOYMENT),
        ("payback", "4. Payback", PLAN if training else PAYBACK),
        ("claims", "Vendor claims", CLAIMS),
        ("benchmarks", "Vendor benchmarks", BENCHMARKS),
    ]
    return [
        Section(
            step,
            title,
            steps.views[step],
            [_shown(r, shown[step]) if step in shown else r for r in steps.rows(step)],
            columns,
        )
        for step, title, columns in titled
    ]


def text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):  # exact, without the column's trailing zeros
        return format(value.normalize(), "f")
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


# The terminal shows this many vendor benchmarks (the JSON and Markdown keep them all): a family's tables run to dozens
# of rows, and none of them decides anything.
BENCHMARKS_SHOWN = 12


def print_decision(console: Console, steps: Steps, verdict: Verdict) -> None:
    console.print(f"[bold]{steps.workload}[/bold] ({steps.work}): [bold]{verdict.verdict}[/bold]")
    for step, title, view, rows, columns in sections(steps):
        shown = rows[:BENCHMARKS_SHOWN] if step == "benchmarks" else rows
        more = f"{len(rows) - len(shown)} more in {view} (or --format json)" if len(shown) < len(rows) else None
        table = Table(title=f"{title} ({view})", title_justify="left", caption=more, caption_justify="left")
        for header in columns.values():
            table.add_column(header)
        for row in shown:
            table.add_row(*(text(row.get(name)) for name in columns))
        console.print(table if rows else f"{title} ({view}): no rows")
    _print_verdict(console, verdict)


def _print_verdict(console: Console, verdict: Verdict) -> None:
    console.print(f"Verdict: [bold]{verdict.verdict}[/bold]. {verdict.reason}")
    if verdict.rule:
        console.print(f"Rule: {verdict.rule}")
    for missing in verdict.missing:
        console.print(f"Missing: {missing}")
    for flag in verdict.flags:
        console.print(f"Flag: {flag}")


def markdown(steps: Steps, verdict: Verdict) -> str:
    lines = [f"# {steps.workload}: {verdict.verdict}", "", f"ratecard's walk of the guide's steps ({steps.work}).", ""]
    for _, title, view, rows, columns in sections(steps):
        lines += [f"## {title}", "", f"From the view `{view}`.", ""]
        if not rows:
            lines += ["No rows.", ""]
            continue
        lines.append("| " + " | ".join(columns.values()) + " |")
        lines.append("|" + "---|" * len(columns))
        lines += ["| " + " | ".join(text(r.get(c)).replace("|", "\\|") for c in columns) + " |" for r in rows]
        lines.append("")
    lines += ["## Verdict", "", f"**{verdict.verdict}**: {verdict.reason}", ""]
    lines += [f"Rule: {verdict.rule}", ""] if verdict.rule else []
    lines += [f"- missing: {m}" for m in verdict.missing] + [f"- flag: {f}" for f in verdict.flags]
    return "\n".join(lines).rstrip() + "\n"


def _json_safe(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def as_data(steps: Steps, verdict: Verdict) -> dict[str, Any]:
    """The decision as data: each step's view and its rows exactly as the view gives them (Decimals as text)."""
    return {
        "workload": steps.workload,
        "work": steps.work,
        "steps": {
            name: {"view": view, "rows": [{k: _json_safe(v) for k, v in r.items()} for r in steps.rows(name)]}
            for name, view in steps.views.items()
        },
        "verdict": asdict(verdict),
    }


def as_json(steps: Steps, verdict: Verdict) -> str:
    return json.dumps(as_data(steps, verdict), indent=2)
