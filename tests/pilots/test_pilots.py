"""`ratecard pilot` as a user runs it (in this process through typer's runner, and in a subprocess where the process
itself is under test: the lock, start-up imports), on a real DuckDB file after an offline refresh: cost per
million work units and payback months to the exact DECIMAL, the verdict both ways, and every refusal landing
nothing."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from decimal import Decimal

import pytest

from tests.cli.test_cli import IMPORTED_HEAVY
from tests.support.pilot_runs import (
    EXAMPLE,
    GOOD_ROW,
    H100,
    HEADER,
    RATECARD,
    RUNPOD_H100,
    TRN1,
    add_trn1_pilot,
    half_up,
    pilot_rows,
    plan,
    ratecard,
    ratecard_process,
    rows,
    traffic,
)

# Its fixtures land a warehouse once per package (conftest.py): every pilot test in one xdist worker.
pytestmark = pytest.mark.xdist_group("pilots")


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


def test_pilots_on_other_hyperscalers_offers_price_like_any_other(db, tmp_path):
    """Azure's offers are per region and kind (its 3-year reservation among them); Google's GPU machines state no
    region, its TPUs do (a chip-hour, Flex-start a kind of its own)."""
    pilots = tmp_path / "hyperscalers.csv"
    pilots.write_text(
        HEADER + "\n"
        "w,Azure,Standard_ND96isr_H100_v5,eastus,on_demand,tokens,19200000,yes,2026-11-20,\n"
        "w,Azure,Standard_ND96isr_H100_v5,eastus,reserved_3y,tokens,19200000,yes,2026-11-20,\n"
        "w,Google Cloud,a3-highgpu-8g,,dws_calendar,tokens,19200000,yes,2026-11-21,\n"
        "w,Google Cloud,TpuV6e running in Columbus,us-east5,on_demand,tokens,2400000,yes,2026-11-22,\n"
        "w,Google Cloud,DWS Defined Duration V6e running in Columbus,us-east5,dws_flex_start,tokens,2400000,yes,"
        "2026-11-22,\n"
    )
    done = ratecard("pilot", "import", pilots, "--db", db)
    assert done.returncode == 0, done.stdout + done.stderr
    costs = rows(db, "SELECT provider, price_kind, usd_per_million_units FROM cost_per_work ORDER BY 1, 2")
    assert costs == [
        ("Azure", "on_demand", half_up(Decimal("98.32") * 1_000_000 / 19_200_000)),
        # The term's price over its 26,280 hours.
        ("Azure", "reserved_3y", half_up(Decimal("1226487.6") / 26280 * 1_000_000 / 19_200_000)),
        ("Google Cloud", "dws_calendar", half_up(Decimal("41.6000") * 1_000_000 / 19_200_000)),
        ("Google Cloud", "dws_flex_start", half_up(Decimal("1.35") * 1_000_000 / 2_400_000)),
        ("Google Cloud", "on_demand", half_up(Decimal("2.7") * 1_000_000 / 2_400_000)),
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
INF2 = "w,,inf2.xlarge,,on_demand,tokens,1000000,yes,2026-09-22,"


def conditions(target: str, p95: str, inputs: str, outputs: str, concurrency: str, billed: str = "",
               busy: str = "", accepted: str = "") -> str:  # fmt: skip
    """The condition cells, then the (empty) terms and framework path cells that end the header."""
    return ",".join((target, p95, inputs, outputs, concurrency, billed, busy, accepted, "", "", ""))


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
