"""The verdict: the guide's rules applied in its order to a workload's steps, the first that decides naming itself.

1. The software gate: an AWS candidate whose framework path is archived, not included or not stated for its
   instance family is out; one no page speaks of is "not verified" and out too (beta stays in, flagged).
2. The pilot: only runs that met the quality target (and, for inference, their latency target) are priced by the
   views; the rest never reach the bill.
3. The bill: for inference, a month of the traffic profile billed as sold, serverless included; for training, the
   spend to the same target quality with every overhead.
4. The payback: the one-time port over the monthly saving, maintenance included, against the workload's lifetime.
5. Commit only when the pilot beats the GPU baseline by enough to cover the port and its maintenance.
Money is Decimal throughout; a quotient is rounded half-up to 2 places only where it is printed as months.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pipelines.decide.steps import Steps

PASSES_GATE = ("eligible", "validate first")
KEEP = "keep or rent the NVIDIA GPU deployment"
SERVERLESS = "go serverless"
UNDECIDED = "not decidable yet"
RULES = {
    "gate": "Start with the software gate: no AWS candidate's framework path runs on Neuron for its chip and release.",
    "pilot": "Then the pilot: no AWS candidate that passed the gate met the quality (and latency) target at a price.",
    "serverless": "The bill: with intermittent traffic, serverless GPU pricing is cheapest per accepted output, "
    "idle time included.",
    "bill": "The bill: the GPU deployment costs less for the same accepted work (or training target).",
    "payback": "The payback: the port pays back within the workload's lifetime, maintenance included, so the pilot "
    "beats the GPU baseline by enough.",
    "no_payback": "The payback: the port does not pay back within the workload's lifetime, maintenance included.",
}


@dataclass
class Verdict:
    verdict: str
    rule: str
    reason: str
    missing: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)  # candidates to validate first (beta)


def _name(row: dict[str, Any], prefix: str = "") -> str:
    provider = row.get(f"{prefix}provider")
    return f"{provider} {row[f'{prefix}offering']}" if provider else str(row[f"{prefix}offering"])


def _passing(steps: Steps) -> set[str]:
    return {g["offering"] for g in steps.gate if g["gate"] in PASSES_GATE}


def _flags(steps: Steps) -> list[str]:
    return [f"{g['offering']}: validate first ({g['reason']})" for g in steps.gate if g["gate"] == "validate first"]


def _eligible(row: dict[str, Any], passing: set[str], source: str = "offering_source") -> bool:
    return row[source] != "aws_instance" or row["offering"] in passing


def decide(steps: Steps) -> Verdict:
    verdict = _training(steps) if steps.work == "training" else _inference(steps)
    verdict.flags = _flags(steps)
    return verdict


def _no_aws_candidate(steps: Steps, priced_aws: list[dict[str, Any]]) -> Verdict | None:
    if steps.gate and not _passing(steps):
        stopped = "; ".join(f"{g['offering']}: {g['gate']} ({g['reason']})" for g in steps.gate)
        return Verdict(KEEP, RULES["gate"], stopped)
    if steps.gate and not priced_aws:
        return Verdict(KEEP, RULES["pilot"], "no AWS pilot that passed the gate is priced (see the pilot step)")
    return None


def _inference(steps: Steps) -> Verdict:
    passing = _passing(steps)
    if not steps.pilots:
        return Verdict(UNDECIDED, "", "no pilot for this workload", ["pilots (ratecard pilot import)"])
    bill = [r for r in steps.bill if r["comparable"] and _eligible(r, passing)]
    priced_aws = [p for p in steps.pilots if p["priced"] and p["offering_source"] == "aws_instance"]
    if bill:
        best = min(bill, key=lambda r: r["monthly_usd"])
        if best["billing"] == "serverless":
            return Verdict(
                f"{SERVERLESS}: {_name(best)}",
                RULES["serverless"],
                f"{_name(best)} costs {best['monthly_usd']:.2f} USD a month for the traffic profile "
                f"(deployment_costs rank {best['rank']})",
            )
    if (stop := _no_aws_candidate(steps, [p for p in priced_aws if p["offering"] in passing])) is not None:
        return stop
    if not steps.plan:
        return Verdict(UNDECIDED, "", "no migration plan", ["migration plan (ratecard pilot plan)"])
    payback = [
        p for p in steps.payback if p["candidate_source"] == "aws_instance" and p["candidate_offering"] in passing
    ]
    migrating = [p for p in payback if p["verdict"] == "migrate" and p["comparable"]]
    if migrating:
        best = min(migrating, key=lambda p: p["months_to_payback"])
        return Verdict(
            f"migrate to {best['candidate_offering']}",
            RULES["payback"],
            f"pays back in {best['months_to_payback']:.2f} months of a {best['lifetime_months']}-month lifetime "
            f"(migration_payback, candidate {best['candidate_offering']})",
        )
    if not payback:
        return Verdict(UNDECIDED, "", "no payback row for an AWS candidate", ["a comparable AWS pilot and baseline"])
    reasons = "; ".join(f"{p['candidate_offering']}: {p['verdict']}" for p in payback)
    return Verdict(KEEP, RULES["no_payback"], reasons)


def _training(steps: Steps) -> Verdict:
    passing = _passing(steps)
    runs = [r for r in steps.bill if r["comparable"]]
    baselines = [r for r in runs if r["offering_source"] == "gpu_listing"]
    candidates = [r for r in runs if r["offering_source"] == "aws_instance" and r["offering"] in passing]
    if not baselines:
        return Verdict(UNDECIDED, "", "no GPU run reached the same target", ["a GPU baseline run (pilot training)"])
    if (stop := _no_aws_candidate(steps, candidates)) is not None:
        return stop
    baseline = min(baselines, key=lambda r: r["spend_to_target_usd"])
    best = min(candidates, key=lambda r: r["spend_to_target_usd"])
    per_run = baseline["spend_to_target_usd"] - best["spend_to_target_usd"]
    if per_run <= 0:
        return Verdict(
            KEEP,
            RULES["bill"],
            f"{_name(baseline)} reaches the target for {baseline['spend_to_target_usd']:.2f} USD, "
            f"{_name(best)} for {best['spend_to_target_usd']:.2f} (training_costs)",
        )
    if not steps.plan:
        return Verdict(
            UNDECIDED, "", "no migration plan", ["migration plan with runs per month as its volume (pilot plan)"]
        )
    return _training_payback(steps.plan[0], baseline, best, per_run)


def _training_payback(
    plan: dict[str, Any], baseline: dict[str, Any], best: dict[str, Any], per_run: Decimal
) -> Verdict:
    """Monthly saving = the saving per run x runs a month (the plan's volume) - maintenance."""
    saving = per_run * plan["monthly_volume"] - plan["monthly_maintenance_usd"]
    kind = f"{best['offering']} ({best['price_kind']})"
    if saving <= 0:
        return Verdict(KEEP, RULES["no_payback"], f"{kind} saves {saving:.2f} USD a month after maintenance")
    months = (plan["one_time_cost_usd"] / saving).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    said = (
        f"{kind} reaches the target for {best['spend_to_target_usd']:.2f} USD against "
        f"{baseline['spend_to_target_usd']:.2f} on {_name(baseline)}; {plan['monthly_volume']} runs a month save "
        f"{saving:.2f} USD after maintenance, paying back in {months} of {plan['lifetime_months']} months"
    )
    if months > plan["lifetime_months"]:
        return Verdict(KEEP, RULES["no_payback"], said)
    return Verdict(f"migrate to {best['offering']}", RULES["payback"], said)
