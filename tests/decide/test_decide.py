"""`ratecard decide` on the example workloads: each decided by a different rule of the guide, a candidate stopped at
the software gate, the JSON equal to the views row for row, and one changed input (a gate status, a latency, a
lifetime) changing the verdict for the stated reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from rich.console import Console

from pipelines.decide.render import BENCHMARKS_SHOWN, as_data, print_decision
from pipelines.decide.steps import gather
from pipelines.decide.verdict import RULES, decide
from tests.support.pilot_runs import ratecard
from warehouse.publish import publish_snapshot

# The room lands one warehouse (conftest.py); its tests share it (read-only) or copy it.
pytestmark = pytest.mark.xdist_group("decide")


def verdict_of(db: Path, workload: str):
    with duckdb.connect(str(db), read_only=True) as con:
        steps = gather(con, workload)
    return steps, decide(steps)


@pytest.fixture(scope="module")
def scratch(decided: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One writable copy of the shared warehouse for the cases that change an input and look at the verdict."""
    copy = tmp_path_factory.mktemp("scratch") / "prices.duckdb"
    shutil.copyfile(decided, copy)
    return copy


def verdict_after(db: Path, workload: str, sql: str):
    """The verdict with `sql` applied, rolled back after: each case starts from the same landing, no copy made."""
    with duckdb.connect(str(db)) as con:
        con.execute("BEGIN")
        try:
            con.execute(sql)
            steps = gather(con, workload)
        finally:
            con.execute("ROLLBACK")
    return steps, decide(steps)


def test_the_three_examples_are_each_decided_by_another_rule(decided):
    verdicts = {w: verdict_of(decided, w)[1] for w in ("chat-8b", "summarise-batch", "pretrain-1b")}
    assert verdicts["chat-8b"].verdict.startswith("go serverless: RunPod")
    assert verdicts["chat-8b"].rule == RULES["serverless"]
    assert (verdicts["summarise-batch"].verdict, verdicts["summarise-batch"].rule) == (
        "migrate to inf2.xlarge",
        RULES["payback"],
    )
    assert (verdicts["pretrain-1b"].verdict, verdicts["pretrain-1b"].rule) == (
        "keep or rent the NVIDIA GPU deployment",
        RULES["bill"],
    )
    assert "Hyperstack NVIDIA H100 SXM reaches the target for 1610.00 USD" in verdicts["pretrain-1b"].reason


def test_the_gate_stops_the_archived_inf1_path_and_quotes_its_source(decided):
    steps, _ = verdict_of(decided, "chat-8b")
    gate = {g["offering"]: g for g in steps.gate}
    assert gate["inf1.xlarge"]["gate"] == "ineligible" and gate["inf1.xlarge"]["status"] == "archived"
    assert "(Inf1 only)" in gate["inf1.xlarge"]["quoted"] and gate["inf1.xlarge"]["source_url"]
    assert gate["inf2.xlarge"]["gate"] == "eligible" and gate["inf2.xlarge"]["release"] == "2.32.0"
    assert gate["trn1.2xlarge"]["reason"] == "TorchNeuron Native is recommended (instance families not stated)"


def test_the_json_is_the_views_row_for_row(decided):
    done = ratecard("decide", "--workload", "summarise-batch", "--format", "json", "--db", decided)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    with duckdb.connect(str(decided), read_only=True) as con:
        steps = gather(con, "summarise-batch")
        bill = con.execute("SELECT count(*) FROM deployment_costs WHERE workload = 'summarise-batch'").fetchone()
    assert data == json.loads(json.dumps(as_data(steps, decide(steps))))
    assert len(data["steps"]["bill"]["rows"]) == bill[0] > 0
    assert (
        data["steps"]["bill"]["view"] == "deployment_costs" and data["verdict"]["verdict"] == "migrate to inf2.xlarge"
    )


def test_the_markdown_for_a_design_review_has_every_step(decided, tmp_path):
    out = tmp_path / "pretrain.md"
    done = ratecard("decide", "--workload", "pretrain-1b", "--out", out, "--db", decided)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    for heading in ("# pretrain-1b: keep or rent the NVIDIA GPU deployment", "## 1. Software gate", "## 3. Bill"):
        assert heading in text
    assert "| 2 | trn2.48xlarge | capacity_block | 1 | 46 | 48 |  | 35.7608 | 1716.5184 |" in text  # its own column


def copy_of(db: Path, tmp_path: Path, sql: str) -> Path:
    copy = tmp_path / "prices.duckdb"
    shutil.copyfile(db, copy)
    with duckdb.connect(str(copy)) as con:
        con.execute(sql)
    publish_snapshot(copy)
    return copy


@pytest.mark.parametrize(
    ("change", "rule", "said"),
    [
        (
            "UPDATE neuron_support_history SET status = 'archived' WHERE package = 'vLLM with NxD Inference'",
            RULES["gate"],
            "inf2.xlarge: ineligible (vLLM with NxD Inference is archived",
        ),
        (
            "UPDATE pilot_result_history SET latency_target_ms = 100, p95_latency_ms = 250"
            " WHERE workload = 'summarise-batch' AND offering = 'inf2.xlarge'",
            RULES["pilot"],
            "no AWS pilot that passed the gate is priced",
        ),
        (
            "UPDATE migration_plan_history SET lifetime_months = 3 WHERE workload = 'summarise-batch'",
            RULES["no_payback"],
            "inf2.xlarge: keep the GPU deployment",
        ),
    ],
    ids=["gate_status", "latency", "lifetime"],
)
def test_one_changed_input_changes_the_verdict_for_the_stated_reason(decided, tmp_path, change, rule, said):
    changed = copy_of(decided, tmp_path, change)
    done = ratecard("decide", "--workload", "summarise-batch", "--format", "json", "--db", changed)
    verdict = json.loads(done.stdout)["verdict"]
    assert verdict["verdict"] == "keep or rent the NVIDIA GPU deployment"
    assert verdict["rule"] == rule and said in verdict["reason"], verdict


def test_an_unknown_workload_names_the_nearest(decided):
    done = ratecard("decide", "--workload", "pretrain-1", "--db", decided)
    assert done.returncode == 1 and "did you mean pretrain-1b" in done.stdout + done.stderr


def test_vendor_benchmarks_are_shown_as_claims_and_decide_nothing(decided, scratch):
    steps, verdict = verdict_of(decided, "summarise-batch")
    families = {g["family"] for g in steps.gate}
    assert steps.benchmarks and {b["instance_family"] for b in steps.benchmarks} <= families
    assert {b["instance_type"] for b in steps.benchmarks} >= {"inf2.xlarge", "inf2.48xlarge"}
    assert all(b["is_claim"] and b["claim_note"] == "vendor benchmark, not your pilot" for b in steps.benchmarks)
    without, unchanged = verdict_after(scratch, "summarise-batch", "DELETE FROM vendor_benchmark_history")
    assert without.benchmarks == [] and unchanged == verdict


def test_a_workload_is_shown_the_benchmarks_of_its_own_work(decided):
    training, _ = verdict_of(decided, "pretrain-1b")
    inference, _ = verdict_of(decided, "summarise-batch")
    assert training.benchmarks and {b["work"] for b in training.benchmarks} == {"training"}
    assert {b["throughput_unit"] for b in training.benchmarks} == {"seq/sec"}
    assert inference.benchmarks and {b["work"] for b in inference.benchmarks} == {"inference"}


def test_the_terminal_shows_the_first_benchmarks_and_says_how_many_more(decided):
    steps, verdict = verdict_of(decided, "summarise-batch")
    steps.benchmarks = steps.benchmarks * (BENCHMARKS_SHOWN // len(steps.benchmarks) + 2)  # more than it shows
    console = Console(record=True, width=400)
    print_decision(console, steps, verdict)
    shown = console.export_text()
    assert f"{len(steps.benchmarks) - BENCHMARKS_SHOWN} more in vendor_benchmarks" in shown
    assert shown.count("vendor benchmark, not your pilot") == BENCHMARKS_SHOWN
    assert len(as_data(steps, verdict)["steps"]["benchmarks"]["rows"]) == len(steps.benchmarks)  # the JSON: all


@pytest.mark.parametrize(("only", "gate"), [(True, "ineligible"), (False, "not verified")])
def test_families_a_statement_names_stop_another_family_only_when_it_says_only_those(scratch, only, gate):
    steps, verdict = verdict_after(
        scratch,
        "summarise-batch",
        f"UPDATE neuron_support_history SET instances = ['trn2'], instances_only = {only}"
        " WHERE package = 'vLLM with NxD Inference'",
    )
    inf2 = next(g for g in steps.gate if g["offering"] == "inf2.xlarge")
    assert (inf2["gate"], inf2["family"]) == (gate, "inf2")
    said = (
        "names only trn2" if only else "names trn2 for vLLM with NxD Inference (recommended) and says nothing of inf2"
    )
    assert said in inf2["reason"], inf2["reason"]
    assert verdict.rule == RULES["gate"]  # no AWS candidate passes: not verified is never passed


ANNOUNCED = "UPDATE pilot_result_history SET framework_path = '{path}' WHERE offering = 'inf2.xlarge';"


@pytest.mark.parametrize(
    ("path", "later", "gate", "reason"),
    [
        ("NxD Inference", "", "validate first",
         "NxD Inference is in maintenance mode from Neuron 2.30.0 (announced 2026-05-20): critical fixes only"),
        ("Torch/XLA", "", "validate first",
         "Torch/XLA is in maintenance mode from Neuron 2.31.0 for inference (announced 2026-06-28): "
         "critical fixes only"),
        ("TensorFlow", "", "ineligible", "TensorFlow is end of support from Neuron 2.29.0 (announced 2026-03-30)"),
        ("TensorFlow", "UPDATE neuron_support_history SET from_release = '2.40.0' WHERE package = 'TensorFlow'",
         "validate first", "TensorFlow reaches end of support from Neuron 2.40.0 (announced 2026-03-30)"),
        ("PyTorch/XLA", "", "not verified",  # its end of support speaks of training only
         "no Neuron documentation page ratecard reads states a status for PyTorch/XLA"),
        ("NeuronX Distributed Training", "", "ineligible",
         "NeuronX Distributed Training is not included after Neuron 2.28.0 (announced 2026-02-26)"),
        ("NeuronX Distributed Training",
         "UPDATE neuron_support_history SET last_release = '2.40.0' WHERE package = 'NeuronX Distributed Training'",
         "validate first", "NeuronX Distributed Training is not included after Neuron 2.40.0 (announced 2026-02-26)"),
        ("tensorflow-neuron", "", "validate first",  # a pilot names no version: a warning, never the status
         "tensorflow-neuron 1.x: maintenance mode from Neuron 2.18.0 (announced 2024-04-01); the pilot names no "
         "version, so check the one it runs"),
    ],
    ids=["maintenance", "maintenance_for_its_work_and_families", "end_of_support", "announced_not_yet", "other_work",
         "last_release", "last_release_not_yet", "some_versions"],
)  # fmt: skip
def test_an_announcement_gates_its_path_from_its_release_for_its_work(scratch, path, later, gate, reason):
    steps, _ = verdict_after(scratch, "summarise-batch", ANNOUNCED.format(path=path) + later)
    inf2 = next(g for g in steps.gate if g["offering"] == "inf2.xlarge")
    assert (inf2["gate"], inf2["reason"]) == (gate, reason)
