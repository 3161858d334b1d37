"""`ratecard pilot` as a user runs it (in this process through typer's runner, and in a subprocess where the process
itself is under test: the lock, start-up imports), on a real DuckDB file after an offline refresh: cost per
million work units and payback months to the exact DECIMAL, the verdict both ways, and every refusal landing
nothing."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.pilots.records import PILOT_COLUMNS
from tests.cli.test_cli import IMPORTED_HEAVY
from tests.support.paths import PILOT_SAMPLES

# Its module fixture lands a warehouse: every test of the module in one xdist worker, so it is landed once.
pytestmark = pytest.mark.xdist_group("pilots")

RATECARD = [sys.executable, "-m", "pipelines.cli"]
EXAMPLE = PILOT_SAMPLES / "example.csv"
SOURCES = ["aws_trn1", "aws_inf1", "aws_inf2", "gpu_hyperstack", "gpu_replicate", "gpu_runpod_serverless"]
SIX = Decimal("0.000001")
HEADER = ",".join(PILOT_COLUMNS)
GOOD_ROW = "w,Hyperstack,NVIDIA H100 SXM,,on_demand,tokens,2400000,yes,2026-09-20,"


Finished = subprocess.CompletedProcess[str]
Run = Callable[..., Finished]


def ratecard(*args: str | Path) -> Finished:
    """The command run in this process, its outcome as a finished process's (each child would spend seconds
    importing what this process has already imported)."""
    result = CliRunner().invoke(app, list(map(str, args)))
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def ratecard_process(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RATECARD, *map(str, args)], capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("refreshed") / "prices.duckdb"
    sources = [arg for sid in SOURCES for arg in ("--source", sid)]
    done = ratecard("refresh", "--offline", "--db", db, *sources)
    assert done.returncode == 0, done.stdout + done.stderr
    return db


@pytest.fixture
def db(refreshed, tmp_path) -> Path:
    """A private copy of the refreshed warehouse (no snapshot yet: the pilot command publishes one)."""
    copy = tmp_path / "prices.duckdb"
    shutil.copyfile(refreshed, copy)
    return copy


def rows(db: Path, query: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(query).fetchall()


def pilot_rows(db: Path) -> int:
    return int(rows(db, "SELECT count(*) FROM pilot_result_history")[0][0])  # type: ignore[call-overload]


def plan(db: Path, workload: str, one_time: str, maintenance: str, volume: str, lifetime: str) -> None:
    done = ratecard(
        "pilot", "plan", "--workload", workload, "--provider", "Hyperstack", "--baseline", "NVIDIA H100 SXM",
        "--one-time-cost", one_time, "--monthly-maintenance", maintenance, "--monthly-volume", volume,
        "--lifetime-months", lifetime, "--db", db,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def add_trn1_pilot(
    db: Path,
    unit: str,
    units_per_hour: str,
    *more: str,
    run: Callable[..., subprocess.CompletedProcess[str]] = ratecard,
) -> subprocess.CompletedProcess[str]:
    return run(
        "pilot", "add", "--workload", "w", "--offering", "trn1.2xlarge", "--unit", unit,
        "--units-per-hour", units_per_hour, "--passed", "--measured-on", "2026-09-01", *more, "--db", db,
    )  # fmt: skip


def half_up(value: Decimal) -> Decimal:
    return value.quantize(SIX, rounding=ROUND_HALF_UP)


def test_example_import_prices_each_passed_pilot_and_decides_payback(db):
    done = ratecard("pilot", "import", EXAMPLE, "--db", db)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "10 pilot results landed" in done.stdout
    plan(db, "chat-8b", "40000", "500", "2000000000", "12")
    plan(db, "summarise-batch", "60,000", "1000", "50000000000", "24")

    costs = dict(
        rows(db, "SELECT offering, usd_per_million_units FROM cost_per_work WHERE workload = 'chat-8b'")  # type: ignore[arg-type]
    )
    # Exact: 2.50 / 2.4 tokens per microhour, 1.34 / 1.5, 0.76 / 1.0, 4.176 / 2.0, 5.49 / 2.0; inf1's failed pilot
    # and the L4 pilot whose p95 missed its target are never priced.
    assert costs == {
        "NVIDIA H100 SXM": Decimal("1.041667"),
        "trn1.2xlarge": Decimal("0.893333"),
        "inf2.xlarge": Decimal("0.760000"),
        RUNPOD_H100: Decimal("2.088000"),
        "gpu-h100": Decimal("2.745000"),
    }
    kinds = rows(db, "SELECT DISTINCT price_kind, typeof(usd_per_million_units) FROM cost_per_work ORDER BY 1")
    assert kinds == [("on_demand", "DECIMAL(38,6)"), ("serverless", "DECIMAL(38,6)")]

    payback = {
        (w, c): (saving, months, verdict)
        for w, c, saving, months, verdict in rows(
            db,
            "SELECT workload, candidate_offering, monthly_saving_usd, months_to_payback, verdict "
            "FROM migration_payback",
        )
    }
    baseline = half_up(Decimal("2.50") * 2_000_000_000 / 2_400_000)  # 2083.333333
    inf2_saving = baseline - Decimal("1520.000000") - 500
    assert payback["chat-8b", "inf2.xlarge"] == (
        inf2_saving,
        half_up(Decimal(40000) / inf2_saving),  # 631.578951 months: longer than 12
        "keep the GPU deployment",
    )
    trn1_saving = baseline - half_up(Decimal("1.34") * 2_000_000_000 / 1_500_000) - 500
    assert trn1_saving < 0 and payback["chat-8b", "trn1.2xlarge"] == (trn1_saving, None, "keep the GPU deployment")
    batch_saving = half_up(Decimal("2.50") * 50_000_000_000 / 2_400_000) - Decimal("38000") - 1000
    assert payback["summarise-batch", "inf2.xlarge"] == (
        batch_saving,
        half_up(Decimal(60000) / batch_saving),  # 4.585987 months, within 24
        "migrate",
    )

    shown = subprocess.run([*RATECARD, "show", "--db", str(db)], capture_output=True, text=True, check=False,
                           env={**os.environ, "COLUMNS": "250"})  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "1.041667" in shown.stdout and "migrate" in shown.stdout and "keep the GPU deployment" in shown.stdout
    for args in (["show", "--db", str(db)], ["pilot", "--help"]):  # still fast: neither imports GE nor Dagster
        done = subprocess.run(
            [sys.executable, "-c", IMPORTED_HEAVY, *args], capture_output=True, text=True, check=False
        )
        assert "HEAVY:\n" in done.stdout, (args, done.stdout[-300:], done.stderr[-300:])


def test_provenance_and_a_later_import_supersedes(db, tmp_path):
    assert ratecard("pilot", "import", EXAMPLE, "--db", db).returncode == 0
    newer = tmp_path / "newer.csv"
    newer.write_text(f'{HEADER}\nchat-8b,,inf2.xlarge,,on_demand,tokens,"1,200,000.5",yes,2026-10-01,rerun\n')
    assert ratecard("pilot", "import", newer, "--db", db).returncode == 0
    current = rows(db, "SELECT units_per_hour, origin, content_sha256 FROM pilot_results "
                       "WHERE workload = 'chat-8b' AND offering = 'inf2.xlarge'")  # fmt: skip
    assert current == [(Decimal("1200000.500"), str(newer), hashlib.sha256(newer.read_bytes()).hexdigest())]
    assert pilot_rows(db) == 11  # the superseded measurement stays in the history
    sha = rows(db, "SELECT content_sha256 FROM pilot_inputs WHERE input_id = 1")[0][0]
    assert sha == hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()


def test_add_lands_one_pilot(db):
    done = add_trn1_pilot(db, "steps", "120.5", "--note", "n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert rows(db, "SELECT work_unit, usd_per_million_units FROM cost_per_work") == [
        ("steps", half_up(Decimal("1.34") * 1_000_000 / Decimal("120.5")))
    ]
    plan(db, "w", "1000", "0", "100000", "6")  # its baseline was never piloted: said so, no figures made up
    assert rows(db, "SELECT candidate_offering, months_to_payback, verdict FROM migration_payback") == [
        (None, None, "no passed pilot of the baseline at a current price")
    ]


@pytest.mark.parametrize(
    ("bad_row", "said"),
    [
        ("w,Hyperstack,NVIDIA H100 SXM,,on_demand,tokens,-5,yes,2026-09-20,", "row 2, units_per_hour"),
        ("w,Hyperstack,NVIDIA H100 SXM,,on_demand,,100,yes,2026-09-20,", "row 2, work_unit: missing"),
        ("w,Hyperstack,NVIDIA H100 SXM,,on_demand,joules,100,yes,2026-09-20,", "row 2, work_unit"),
        ("w,Hyperstack,NVIDIA H100 SXM,,on_demand,tokens,100,maybe,2026-09-20,", "row 2, quality_passed"),
        ("w,Hyperstack,NVIDIA H100 SXM,,on_demand,tokens,100,yes,2999-01-01,", "row 2, measured_on"),
        ("w,Hyperstack,NVIDIA H999,,on_demand,tokens,100,yes,2026-09-20,", "row 2: unknown offering"),
        ("w,,trn1.2xlarge,us-east-1,on_demand,tokens,100,yes,2026-09-20,", "row 2: unknown offering"),
        (GOOD_ROW, "row 2: the pilot 'w' on"),  # the same workload and offering twice in one file: both rows named
    ],
)
def test_a_bad_row_lands_nothing(db, tmp_path, bad_row, said):
    bad = tmp_path / "bad.csv"
    bad.write_text(f"{HEADER}\n{GOOD_ROW}\n{bad_row}\n")
    done = ratecard("pilot", "import", bad, "--db", db)
    assert done.returncode == 8, done.stdout + done.stderr
    assert f"error: {bad}: nothing landed" in done.stderr and said in done.stderr
    assert "Traceback" not in done.stderr
    assert pilot_rows(db) == 0 and rows(db, "SELECT count(*) FROM pilot_inputs") == [(0,)]


def test_pilot_errors_name_the_rows_for_encoding_and_duplicates(db, tmp_path):
    """A byte that is not UTF-8 is reported by its row and line, a repeated pilot by both rows' numbers."""
    latin = tmp_path / "latin1.csv"
    latin.write_bytes(f"{HEADER}\n{GOOD_ROW}\n".encode() + "caf\u00e9,".encode("latin-1") + GOOD_ROW[2:].encode())
    done = ratecard("pilot", "import", latin, "--db", db)
    assert done.returncode == 8 and "row 2 (line 3)" in done.stderr and "0xe9 is not UTF-8" in done.stderr, done.stderr
    twice = tmp_path / "twice.csv"
    twice.write_text(f"{HEADER}\n{GOOD_ROW}\n{GOOD_ROW.replace('w,', 'other,', 1)}\n{GOOD_ROW}\n")
    done = ratecard("pilot", "import", twice, "--db", db)
    assert done.returncode == 8 and "row 3: the pilot 'w' on " in done.stderr, done.stderr
    assert "already given in row 1" in done.stderr, done.stderr
    profiles = tmp_path / "traffic.csv"
    profiles.write_text("workload,monthly_units,active_hours_per_day,peak_units_per_hour\nw,100,2,100\nw,200,2,100\n")
    done = ratecard("pilot", "traffic", "--csv", profiles, "--db", db)
    assert done.returncode == 8 and "row 2: workload 'w' already given in row 1" in done.stderr, done.stderr
    assert pilot_rows(db) == 0 and rows(db, "SELECT count(*) FROM traffic_profile_history") == [(0,)]


def test_a_missing_column_and_a_bad_plan_are_refused(db, tmp_path):
    bad = tmp_path / "nounit.csv"
    bad.write_text(HEADER.replace(",work_unit", "") + "\n")
    done = ratecard("pilot", "import", bad, "--db", db)
    assert done.returncode == 8 and "required column(s) work_unit missing" in done.stderr
    unknown = ratecard(
        "pilot", "plan", "--workload", "w", "--baseline", "p9.huge", "--one-time-cost", "1",
        "--monthly-maintenance", "0", "--monthly-volume", "10", "--lifetime-months", "3", "--db", db,
    )  # fmt: skip
    assert unknown.returncode == 8 and "baseline: unknown offering AWS instance 'p9.huge'" in unknown.stderr
    negative = ratecard(
        "pilot", "plan", "--workload", "w", "--baseline", "trn1.2xlarge", "--one-time-cost", "-1",
        "--monthly-maintenance", "0", "--monthly-volume", "10", "--lifetime-months", "3", "--db", db,
    )  # fmt: skip
    assert negative.returncode == 8 and "one_time_cost_usd" in negative.stderr
    assert rows(db, "SELECT count(*) FROM migration_plan_history") == [(0,)]
    added = add_trn1_pilot(db, "tokens", "-5")
    assert added.returncode == 8 and "pilot add: nothing landed: options, units_per_hour" in added.stderr
    assert pilot_rows(db) == 0


def test_a_running_refresh_holds_the_pilot_back(db):
    from warehouse.lock import exclusive_refresh

    with exclusive_refresh(db):
        done = add_trn1_pilot(db, "tokens", "5", "--wait", "0", run=ratecard_process)  # the lock holds other processes
    assert done.returncode == 3, done.stdout + done.stderr
    assert pilot_rows(db) == 0


MILLION = '"1,000,000"'  # quoted, as a spreadsheet writes a number with thousands separators
TRN1 = "w,,trn1.2xlarge,,on_demand,tokens,1500000,yes,2026-09-23,"
H100 = "w,Hyperstack,NVIDIA H100 SXM,,on_demand,tokens,2400000,yes,2026-09-20,"
INF2 = "w,,inf2.xlarge,,on_demand,tokens,1000000,yes,2026-09-22,"


def conditions(target: str, p95: str, inputs: str, outputs: str, concurrency: str, billed: str = "",
               busy: str = "", accepted: str = "") -> str:  # fmt: skip
    return ",".join((target, p95, inputs, outputs, concurrency, billed, busy, accepted))


def test_cost_per_accepted_output_pays_for_idle_hours_and_a_missed_latency_target_is_not_priced(db, tmp_path):
    pilots = tmp_path / "conditions.csv"
    pilots.write_text(
        f"{HEADER}\n"
        f"{H100},{conditions('500', '420.5', '1000', '200', '8', '100', '25', MILLION)}\n"
        f"{TRN1},{conditions('500', '610', '1000', '200', '8', '100', '25', '900000')}\n"
        f"{INF2},{conditions('500', '480', '1000', '200', '8', '100', '30', '0')}\n"
    )
    done = ratecard("pilot", "import", pilots, "--db", db)
    assert done.returncode == 0, done.stdout + done.stderr
    priced = rows(db, "SELECT offering, usd_per_million_accepted, pilot_utilisation, conditions FROM cost_per_work "
                      "ORDER BY offering")  # fmt: skip
    assert priced == [
        # 100 billed hours x $2.50 / 1,000,000 accepted x 10^6: the 75 idle hours are paid for
        ("NVIDIA H100 SXM", Decimal("250.000000"), Decimal("0.250000"),
         "latency target 500.000 ms, input 1000, output 200, concurrency 8"),
        ("inf2.xlarge", None, Decimal("0.300000"), "latency target 500.000 ms, input 1000, output 200, concurrency 8"),
    ]  # fmt: skip
    standing = rows(db, "SELECT offering, priced, not_priced_because FROM pilot_standing ORDER BY offering")
    assert standing == [
        ("NVIDIA H100 SXM", True, None),
        ("inf2.xlarge", True, None),
        ("trn1.2xlarge", False, "p95 latency 610.000 ms is above its target of 500.000 ms"),
    ]


def test_pilots_under_different_conditions_are_not_compared(db, tmp_path):
    pilots = tmp_path / "mismatch.csv"
    pilots.write_text(
        f"{HEADER}\n{H100},{conditions('500', '400', '1000', '200', '8')}\n"
        f"{INF2},{conditions('500', '450', '1000', '200', '16')}\n"
    )
    assert ratecard("pilot", "import", pilots, "--db", db).returncode == 0
    plan(db, "w", "1000", "0", "100000", "6")
    (found,) = rows(db, "SELECT candidate_offering, comparable, months_to_payback, verdict FROM migration_payback")
    assert found[:3] == ("inf2.xlarge", False, None)
    assert found[3] == (
        "not comparable: the baseline ran at latency target 500.000 ms, input 1000, output 200, concurrency 8; "
        "the candidate at latency target 500.000 ms, input 1000, output 200, concurrency 16"
    )
    traffic(db, "1,000,000", "2", "1000000")
    ranked = rows(db, "SELECT offering, comparable, rank FROM deployment_costs ORDER BY offering")
    # Two conditions, one pilot each: the mode is the first in order (concurrency 16 sorts before 8 as text).
    assert [(offering, comparable) for offering, comparable, _ in ranked] == [
        ("NVIDIA H100 SXM", False),
        ("inf2.xlarge", True),
    ]
    assert [rank for _, comparable, rank in ranked if not comparable] == [None]


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        (conditions("", "400", "", "", ""), "give latency_target_ms and p95_latency_ms together"),
        (conditions("", "", "", "", "", "10", "11", "5"), "busy_hours needs billed_hours, and cannot exceed them"),
        (conditions("", "", "", "", "", "10", "", ""), "give billed_hours and accepted_outputs together"),
        (conditions("", "", "0", "", ""), "row 1, input_units"),
        (conditions("", "", "", "", "", "10", "", "1,000"), "row 1: 1 more cell(s) than the header"),
    ],
)
def test_conditions_that_do_not_hold_together_are_refused_with_the_row(fields, said, tmp_path):
    from pipelines.pilots.errors import PilotInputError
    from pipelines.pilots.records import read_pilot_csv

    with pytest.raises(PilotInputError) as refused:
        read_pilot_csv("pilots.csv", f"{HEADER}\n{H100},{fields}\n")
    assert any(said in problem and problem.startswith("row 1") for problem in refused.value.problems), refused.value


def D6(text: str) -> Decimal:  # reads as the DECIMAL(38, 6) it stands for
    return Decimal(text).quantize(SIX)


def D18(text: str) -> Decimal:
    return Decimal(text).quantize(Decimal("1e-18"))


RUNPOD_H100 = "serverless pool 80 GB (H100 PRO): H100 PRO"
DEPLOYMENT_PILOTS = (
    f"{HEADER}\n"
    f"{H100}\n"
    "w,Replicate,gpu-h100,,serverless,tokens,2000000,yes,2026-09-20,\n"
    f"w,RunPod,{RUNPOD_H100},,serverless,tokens,2000000,yes,2026-09-20,\n"
)


def traffic(db: Path, monthly: str, hours: str, peak: str, *more: str) -> None:
    done = ratecard(
        "pilot", "traffic", "--workload", "w", "--monthly-units", monthly, "--active-hours-per-day", hours,
        "--peak-units-per-hour", peak, *more, "--db", db,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def deployment(db: Path) -> dict[str, tuple]:
    found = rows(db, "SELECT offering, billing, instances, billed_hours_per_month, busy_hours_per_month, utilisation, "
                     "usd_per_billed_hour, monthly_usd, rank FROM deployment_costs")  # fmt: skip
    return {offering: tuple(rest) for offering, *rest in found}


def test_intermittent_traffic_goes_serverless_and_steady_traffic_always_on(db, tmp_path):
    pilots = tmp_path / "deployment.csv"
    pilots.write_text(DEPLOYMENT_PILOTS)
    assert ratecard("pilot", "import", pilots, "--db", db).returncode == 0
    traffic(db, "20,000,000", "2", "1000000", "--cold-start-seconds", "30")
    costs = deployment(db)
    # Always on: one instance for the peak, the profile's 30 days x 24 h at $2.50.
    assert costs["NVIDIA H100 SXM"] == ("always_on", 1, D6("720"), D6("8.333333"), D6("0.011574"), D18("2.5"),
                                        D6("1800"), 3)  # fmt: skip
    # RunPod bills the 30 s cold start and its 5 s idle timeout: 30 days x (1,200 + 35) s = 10.291667 h x $4.176.
    assert costs[RUNPOD_H100] == ("serverless", 1, D6("10.291667"), D6("10"), D6("0.971660"), D18("4.176"),
                                  Decimal("42.978001392"), 1)  # fmt: skip
    # Replicate bills neither for a public model: busy time only, 10 h x $5.49.
    assert costs["gpu-h100"] == ("serverless", 1, D6("10"), D6("10"), D6("1"), D18("5.49"), D6("54.9"), 2)
    (break_even,) = rows(db, "SELECT accelerator_model, break_even_utilisation FROM deployment_break_even")
    assert break_even == ("H100", D6("0.498883"))  # (2.50 / 2.4) / (4.176 / 2.0): below 50 % use, serverless

    traffic(db, "1,500,000,000", "24", "2400000")  # steady: the later profile supersedes
    steady = deployment(db)
    assert steady["NVIDIA H100 SXM"][-1] == 1 and steady["NVIDIA H100 SXM"][6] == D6("1800")
    assert steady["gpu-h100"][:3] == ("serverless", 2, D6("750")) and steady["gpu-h100"][6] == D6("4117.5")
    check_invariants(db)


def check_invariants(db: Path) -> None:
    for billing, instances, billed, busy, utilisation, price, monthly, days in rows(
        db, "SELECT billing, instances, billed_hours_per_month, busy_hours_per_month, utilisation, "
            "usd_per_billed_hour, monthly_usd, days_per_month FROM deployment_costs"
    ):  # fmt: skip
        assert monthly == billed * price  # exactly, not rounded
        assert utilisation is None or utilisation <= 1
        assert billed >= busy
        assert billing == "serverless" or billed == instances * days * 24  # the profile's month, as serverless


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        # No traffic: nothing to size for, nothing billed, utilisation undefined.
        (("0", "0", "0"), {"NVIDIA H100 SXM": (0, D6("0"), None, D6("0")), "gpu-h100": (0, D6("0"), None, D6("0"))}),
        # A peak above one instance: ceil(5,000,000 / 2,400,000) = 3 instances, each billed 30 days x 24 h.
        (("100,000,000", "24", "5000000"), {"NVIDIA H100 SXM": (3, D6("2160"), D6("0.019290"), D6("5400"))}),
        # One token a day: 0.0018 s of work rounds up to Replicate's 1 s increment, 30 times a month.
        (("30", "1", "1"), {"gpu-h100": (1, D6("0.008333"), D6("0.001800"), Decimal("0.04574817"))}),
    ],
    ids=["zero_traffic", "peak_above_one_instance", "increment_larger_than_a_request"],
)
def test_the_cost_models_edges(db, tmp_path, profile, expected):
    pilots = tmp_path / "deployment.csv"
    pilots.write_text(DEPLOYMENT_PILOTS)
    assert ratecard("pilot", "import", pilots, "--db", db).returncode == 0
    traffic(db, *profile)
    costs = deployment(db)
    for offering, (instances, billed, utilisation, monthly) in expected.items():
        found = costs[offering]
        assert (found[1], found[2], found[4], found[6]) == (instances, billed, utilisation, monthly), offering
    check_invariants(db)


def test_a_traffic_profile_that_cannot_hold_is_refused_with_the_field(db, tmp_path):
    done = ratecard("pilot", "traffic", "--workload", "w", "--monthly-units", "1000", "--active-hours-per-day", "2",
                    "--peak-units-per-hour", "10", "--db", db)  # fmt: skip
    assert done.returncode == 8 and "monthly_units 1000 exceed what the peak can carry" in done.stderr
    bad = tmp_path / "traffic.csv"
    bad.write_text("workload,monthly_units,active_hours_per_day,peak_units_per_hour\nw,100,25,10\nw,100,2,100\n")
    done = ratecard("pilot", "traffic", "--csv", bad, "--db", db)
    assert done.returncode == 8 and "row 1, active_hours_per_day" in done.stderr
    assert "row 2: workload 'w' already given in row 1" not in done.stderr  # row 1 was refused: nothing to repeat
    assert rows(db, "SELECT count(*) FROM traffic_profile_history") == [(0,)]


TRAFFIC_EXAMPLE = EXAMPLE.with_name("traffic_example.csv")


def test_the_examples_two_profiles_decide_differently(db):
    """make demo's decisions: intermittent chat-8b goes serverless, steady summarise-batch stays always-on."""
    assert ratecard("pilot", "import", EXAMPLE, "--db", db).returncode == 0
    assert ratecard("pilot", "traffic", "--csv", TRAFFIC_EXAMPLE, "--db", db).returncode == 0
    best = dict(rows(db, "SELECT workload, billing FROM deployment_costs WHERE rank = 1"))
    assert best == {"chat-8b": "serverless", "summarise-batch": "always_on"}
    billings = rows(db, "SELECT workload, count(DISTINCT billing) FROM deployment_costs GROUP BY ALL ORDER BY 1")
    assert billings == [("chat-8b", 2), ("summarise-batch", 2)]
    check_invariants(db)
    shown = ratecard("pilot", "costs", "--workload", "chat-8b", "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert "p95 latency 1350.000 ms is above its target of 800.000 ms" in shown.stdout  # the L4 pilot, not ranked
    assert "break-even" in shown.stdout and "4194.79" in shown.stdout
    missing = ratecard("pilot", "costs", "--workload", "chat-8", "--db", db)
    assert missing.returncode == 1, missing.stdout + missing.stderr
    assert "error: unknown workload 'chat-8'" in missing.stderr and "hint: did you mean chat-8b?" in missing.stderr


def test_the_same_file_imported_again_adds_nothing_until_something_superseded_it(db):
    """A rerun of `make demo` lands no duplicate pilots; a file whose rows were since superseded lands again."""
    assert ratecard("pilot", "import", EXAMPLE, "--db", db).returncode == 0
    again = ratecard("pilot", "import", EXAMPLE, "--db", db)
    assert again.returncode == 0, again.stderr
    assert "nothing landed" in again.stdout and "as input 1, whose rows are all current" in again.stdout
    assert pilot_rows(db) == 10 and rows(db, "SELECT count(*) FROM pilot_inputs") == [(1,)]
    superseding = ratecard(
        "pilot", "add", "--workload", "chat-8b", "--offering", "inf2.xlarge", "--unit", "tokens",
        "--units-per-hour", "999", "--passed", "--measured-on", "2026-09-01", "--db", db,
    )  # fmt: skip
    assert superseding.returncode == 0, superseding.stderr
    restored = ratecard("pilot", "import", EXAMPLE, "--db", db)
    assert "10 pilot results landed" in restored.stdout, restored.stdout + restored.stderr
    assert pilot_rows(db) == 21


@st.composite
def month_profiles(draw: st.DrawFn) -> dict[str, str]:
    """A profile the traffic command accepts, over 28 to 31 days, from no traffic to every active hour at its peak,
    with a peak from a fraction of one instance to many workers."""
    days = draw(st.decimals(min_value=28, max_value=31, places=2))
    hours = draw(st.one_of(st.just(Decimal(24)), st.decimals(min_value=Decimal("0.001"), max_value=24, places=3)))
    peak = draw(st.integers(min_value=1, max_value=30_000_000))
    most = int(peak * hours * days)  # whole units: what the peak carries, rounded down
    monthly = draw(st.one_of(st.just(most), st.integers(min_value=0, max_value=most)))
    cold = draw(st.integers(min_value=0, max_value=3600))
    return {"workload": "w", "monthly_units": str(monthly), "active_hours_per_day": str(hours),
            "peak_units_per_hour": str(peak), "days_per_month": str(days), "cold_start_seconds": str(cold)}  # fmt: skip


def test_every_option_is_billed_over_the_profiles_month_at_28_to_31_days(db, tmp_path):
    """Always-on and serverless bill the same days, so no row bills fewer hours than it is busy."""
    from pipelines.pilots.landing import sha256_of
    from pipelines.pilots.traffic import land_traffic, traffic_from_fields
    from warehouse.db import connect

    pilots = tmp_path / "deployment.csv"
    pilots.write_text(f"{DEPLOYMENT_PILOTS}{TRN1}\n")
    assert ratecard("pilot", "import", pilots, "--db", db).returncode == 0
    origin = "ratecard pilot traffic"

    @settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(month_profiles())
    # The 31-day month at its peak on trn1.2xlarge (1,500,000 tokens an hour): 744 h per instance, not 730.
    @example({"workload": "w", "monthly_units": "16740000000", "active_hours_per_day": "24",
              "peak_units_per_hour": "22500000", "days_per_month": "31", "cold_start_seconds": "0"})  # fmt: skip
    def holds(fields: dict[str, str]) -> None:
        profile = traffic_from_fields("options", fields, origin)
        land_traffic(con, origin, sha256_of(repr(fields).encode()), [profile])
        found = con.execute(
            "SELECT offering, billing, instances, billed_hours_per_month, busy_hours_per_month, utilisation, "
            "days_per_month FROM deployment_costs"
        ).fetchall()
        assert {billing for _, billing, *_ in found} == {"always_on", "serverless"}
        for offering, billing, instances, billed, busy, utilisation, days in found:
            assert billed >= busy, (offering, fields)
            assert utilisation is None or utilisation <= 1, (offering, fields)
            assert billing == "serverless" or billed == instances * days * 24, (offering, fields)

    with connect(db) as con:
        holds()
