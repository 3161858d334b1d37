"""Traffic profiles and deployment costs as `ratecard pilot traffic` lands them: always-on against serverless over
the profile's own month, the edges of the cost model, and the examples' two profiles deciding differently."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.support.pilot_runs import (
    EXAMPLE,
    H100,
    HEADER,
    RUNPOD_H100,
    SIX,
    TRN1,
    pilot_rows,
    ratecard,
    rows,
    traffic,
)

# Its fixtures land a warehouse once per package (conftest.py): every pilot test in one xdist worker.
pytestmark = pytest.mark.xdist_group("pilots")


def D6(text: str) -> Decimal:  # reads as the DECIMAL(38, 6) it stands for
    return Decimal(text).quantize(SIX)


def D18(text: str) -> Decimal:
    return Decimal(text).quantize(Decimal("1e-18"))


DEPLOYMENT_PILOTS = (
    f"{HEADER}\n"
    f"{H100}\n"
    "w,Replicate,gpu-h100,,serverless,tokens,2000000,yes,2026-09-20,\n"
    f"w,RunPod,{RUNPOD_H100},,serverless,tokens,2000000,yes,2026-09-20,\n"
)


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
    said = " ".join(shown.stdout.split())  # the line wraps at 100 columns
    assert "p95 latency 1350.000 ms is above its target of 800.000 ms" in said  # the L4 pilot, not ranked
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
