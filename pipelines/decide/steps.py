"""Each step of a workload's decision, read as rows of the views that hold it (nothing recomputed here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb

from warehouse.queries import rows_as_dicts

GATE = "SELECT * FROM decision_gate WHERE workload = $workload ORDER BY offering"
PILOTS = "SELECT * FROM pilot_standing WHERE workload = $workload ORDER BY offering_source, provider, offering"
TRAINING_STANDING = "SELECT * FROM training_standing WHERE workload = $workload ORDER BY offering, run_conditions"
DEPLOYMENT = "SELECT * FROM deployment_costs WHERE workload = $workload ORDER BY comparable DESC, rank, offering"
TRAINING = "SELECT * FROM training_costs WHERE workload = $workload ORDER BY comparable DESC, rank, offering"
PAYBACK = "SELECT * FROM migration_payback WHERE workload = $workload ORDER BY months_to_payback NULLS LAST"
PLAN = """
SELECT * FROM migration_plan_history WHERE workload = $workload
QUALIFY row_number() OVER (PARTITION BY workload ORDER BY input_id DESC) = 1
"""
# Claims from the product pages of the candidates' instance families: shown as claims, never used.
CLAIMS = """
SELECT DISTINCT c.claim_text, c.page_url, c.page_title, c.is_claim, c.source_id, c.fetched_at
FROM vendor_claims AS c
JOIN decision_gate AS g ON g.workload = $workload AND g.family IS NOT NULL
 AND c.page_url ILIKE '%/' || regexp_replace(g.family, 'n$', '') || '/%'
ORDER BY c.source_id, c.claim_text
"""
# The vendor's published benchmarks for the candidates' instance families: shown as claims, never used.
BENCHMARKS = """
SELECT b.* FROM vendor_benchmarks AS b
WHERE (b.instance_family, b.work) IN (
    SELECT (family, work) FROM decision_gate WHERE workload = $workload AND family IS NOT NULL)
ORDER BY b.instance_type, b.model, release_order(b.neuron_release) DESC, b.conditions
"""
WORKLOADS = """
SELECT workload FROM pilot_results UNION SELECT workload FROM training_runs
UNION SELECT workload FROM migration_plan_history UNION SELECT workload FROM traffic_profiles
ORDER BY workload
"""


@dataclass
class Steps:
    """The rows of every step for one workload; `work` is training when it has training runs, else inference."""

    workload: str
    work: str
    gate: list[dict[str, Any]] = field(default_factory=list)
    pilots: list[dict[str, Any]] = field(default_factory=list)
    bill: list[dict[str, Any]] = field(default_factory=list)
    payback: list[dict[str, Any]] = field(default_factory=list)
    plan: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    benchmarks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def views(self) -> dict[str, str]:
        """Which view each step's rows are."""
        training = self.work == "training"
        return {
            "gate": "decision_gate",
            "pilots": "training_standing" if training else "pilot_standing",
            "bill": "training_costs" if training else "deployment_costs",
            "payback": "migration_plan_history" if training else "migration_payback",
            "claims": "vendor_claims",
            "benchmarks": "vendor_benchmarks",
        }

    def rows(self, step: str) -> list[dict[str, Any]]:
        """A step's rows, as its view (`views`) gives them; a training payback is its migration plan."""
        if step == "payback" and self.work == "training":
            return self.plan
        rows: list[dict[str, Any]] = getattr(self, step)
        return rows


def workloads(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [row["workload"] for row in rows_as_dicts(con, WORKLOADS)]


def gather(con: duckdb.DuckDBPyConnection, workload: str) -> Steps:
    params = {"workload": workload}
    training = rows_as_dicts(con, TRAINING_STANDING, params)
    steps = Steps(workload, "training" if training else "inference")
    steps.gate = rows_as_dicts(con, GATE, params)
    steps.plan = rows_as_dicts(con, PLAN, params)
    steps.claims = rows_as_dicts(con, CLAIMS, params)
    steps.benchmarks = rows_as_dicts(con, BENCHMARKS, params)
    if training:
        steps.pilots, steps.bill = training, rows_as_dicts(con, TRAINING, params)
    else:
        steps.pilots, steps.bill = rows_as_dicts(con, PILOTS, params), rows_as_dicts(con, DEPLOYMENT, params)
        steps.payback = rows_as_dicts(con, PAYBACK, params)
    return steps
