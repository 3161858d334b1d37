"""Training runs to a target quality: the example priced to the cent with every overhead apart, whole Capacity
Blocks, runs that missed their target or ran under other conditions never ranked, and spend = instances x hours x
price for any run (a property test over the view itself)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from decimal import ROUND_CEILING, Decimal
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.paths import PILOT_SAMPLES
from tests.support.pilot_runs import ratecard, rows

TRAINING = PILOT_SAMPLES / "training_example.csv"
D = Decimal
INPUT = 1_000_000  # an input id no landing reaches: the property's rows, rolled back after each example


@pytest.fixture(scope="module")
def trained(refreshed: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("trained") / "prices.duckdb"
    shutil.copyfile(refreshed, db)
    done = ratecard("pilot", "training", TRAINING, "--db", db)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 training run(s) landed" in done.stdout
    return db


def test_each_run_that_reached_its_target_is_priced_to_the_cent_with_every_overhead_apart(trained):
    found = rows(
        trained,
        """SELECT offering, price_kind, instances, hours_to_target, billed_hours, usd_per_offering_hour,
                  training_usd, compile_usd, warmup_usd, interrupted_usd, recovery_usd, unused_block_usd,
                  spend_to_target_usd, rank
           FROM training_costs WHERE comparable ORDER BY rank""",
    )
    assert [(o, k, n, h, b, p) for o, k, n, h, b, p, *_ in found] == [
        ("NVIDIA H100 SXM", "on_demand", 16, D("40.250"), D("40.250"), D("2.50")),
        ("trn2.48xlarge", "capacity_block", 1, D("46.000"), D("48.000"), D("35.7608")),
        ("trn1.32xlarge", "on_demand", 2, D("76.250"), D("76.250"), D("21.50")),
    ]
    spends = [tuple(D(v).normalize() for v in row[6:13]) for row in found]
    assert spends == [
        (D("1600"), D(0), D(10), D(0), D(0), D(0), D(1610)),
        (D("1573.4752"), D("53.6412"), D("17.8804"), D(0), D(0), D("71.5216"), D("1716.5184")),
        (D("3010"), D(86), D("21.5"), D(129), D("32.25"), D(0), D("3278.75")),
    ]
    assert [row[13] for row in found] == [1, 2, 3]


def test_a_capacity_block_is_billed_in_whole_blocks_and_says_where_the_durations_come_from(trained):
    ((unused, rule),) = rows(
        trained, "SELECT unused_block_hours, billing_rule FROM training_costs WHERE price_kind = 'capacity_block'"
    )
    assert unused == D("2.000") and "1-14 days in 1-day steps" in rule and "EC2 User Guide" in rule
    blocks = rows(
        trained,
        "SELECT capacity_block_hours(h) FROM (VALUES (0.5), (24), (24.001), (336), (336.5), (4368), (4368.001)) t(h)",
    )
    assert [b for (b,) in blocks] == [D(24), D(24), D(48), D(336), D(504), D(4368), None]


def test_a_run_that_missed_its_target_is_never_priced_and_says_why(trained):
    assert rows(trained, "SELECT count(*) FROM training_costs WHERE offering = 'trn1n.32xlarge'") == [(0,)]
    assert rows(
        trained, "SELECT priced, not_priced_because FROM training_standing WHERE offering = 'trn1n.32xlarge'"
    ) == [(False, "target quality not reached (eval loss <= 2.10)")]


def test_a_run_on_another_dataset_evaluation_or_stopping_rule_is_never_ranked_and_says_why(trained):
    ((comparable, rank, why),) = rows(
        trained,
        "SELECT comparable, rank, not_comparable_because FROM training_costs WHERE dataset = 'fineweb-edu-2B'",
    )
    assert (comparable, rank) == (False, None)
    assert why.startswith("not compared: this run used fineweb-edu-2B / heldout-v1 / fixed 20000 steps")


@pytest.mark.parametrize(
    ("cell", "value", "problem"),
    [
        ("compile_hours", "5400", "compile_hours: Input should be less than or equal to 72"),
        ("wall_hours", "0", "wall_hours: Input should be greater than 0"),
        ("quality_reached", "maybe", "quality target reached must be yes or no"),
    ],
)
def test_an_implausible_or_unclear_row_refuses_the_file_naming_row_and_field(db, tmp_path, cell, value, problem):
    header, first, *rest = TRAINING.read_text().splitlines()
    names = header.split(",")
    cells = first.split(",")
    cells[names.index(cell)] = value
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([header, ",".join(cells), *rest]) + "\n")
    done = ratecard("pilot", "training", bad, "--db", db)
    assert done.returncode != 0 and "row 1" in done.stdout + done.stderr and problem in done.stdout + done.stderr
    assert rows(db, "SELECT count(*) FROM training_run_history") == [(0,)]


def test_a_spot_run_must_state_its_interrupted_hours(db, tmp_path):
    spot = tmp_path / "spot.csv"
    header = TRAINING.read_text().splitlines()[0]
    spot.write_text(header + "\nw,,trn1.32xlarge,,spot,,,1,10,0,0,,0,yes,m,d,e,s,torch-neuronx,2026-10-01,\n")
    done = ratecard("pilot", "training", spot, "--db", db)
    assert done.returncode != 0 and "a spot run states its interrupted_hours" in done.stdout + done.stderr


RUN = st.fixed_dictionaries(
    {
        "instances": st.integers(1, 512),
        "wall": st.decimals(D("0.001"), D("5000"), places=3),
        "compile": st.decimals(D(0), D(72), places=3),
        "warmup": st.decimals(D(0), D(72), places=3),
        "interrupted": st.none() | st.decimals(D(0), D(500), places=3),
        "recovery": st.decimals(D(0), D(100), places=3),
        "offering": st.sampled_from(
            [("trn1.32xlarge", None, "on_demand"), ("trn2.48xlarge", "US East (Ohio)", "capacity_block")]
        ),
    }
)


@pytest.fixture(scope="module")
def writable(trained: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    """One connection for every example, to a copy of its own (the other tests read the original)."""
    copy = tmp_path_factory.mktemp("property") / "prices.duckdb"
    shutil.copyfile(trained, copy)
    with duckdb.connect(str(copy)) as con:
        yield con


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs=st.lists(RUN, min_size=1, max_size=8))
def test_spend_to_target_is_instances_times_billed_hours_times_price_for_any_run(writable, runs):
    """Rows written straight into the history inside a transaction that is rolled back: the view's own arithmetic,
    against Decimal."""
    con = writable
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(
            "INSERT INTO pilot_inputs VALUES (?, now(), 'test', 'property', 'x', 'training', ?)", [INPUT, len(runs)]
        )
        for n, run in enumerate(runs, start=1):
            offering, region, kind = run["offering"]
            con.execute(
                """INSERT INTO training_run_history (input_id, row_number, workload, offering_source, offering,
                       region, price_kind, instances, wall_hours, compile_hours, warmup_hours, interrupted_hours,
                       recovery_hours, quality_reached, target_metric, dataset, evaluation, stopping_criterion,
                       framework_path, measured_on)
                   VALUES (?, ?, ?, 'aws_instance', ?, ?, ?, ?, ?, ?, ?, ?, ?, true, 'm', 'd', 'e', 's', 'p',
                           DATE '2026-10-01')""",
                [INPUT, n, f"property-{n}", offering, region, kind, run["instances"], run["wall"], run["compile"],
                 run["warmup"], run["interrupted"], run["recovery"]],
            )  # fmt: skip
        found = con.execute(
            """SELECT workload, instances, billed_hours, usd_per_offering_hour, training_usd + compile_usd
                      + warmup_usd + interrupted_usd + recovery_usd + unused_block_usd, spend_to_target_usd
               FROM training_costs WHERE workload LIKE 'property-%' ORDER BY workload"""
        ).fetchall()
    finally:
        con.execute("ROLLBACK")
    expected = {}
    for n, run in enumerate(runs, start=1):
        hours = run["wall"] + run["compile"] + run["warmup"] + (run["interrupted"] or 0) + run["recovery"]
        block = 24 if hours <= 336 else 168
        blocks = (hours / block).to_integral_value(rounding=ROUND_CEILING)
        billed = hours if run["offering"][2] == "on_demand" else blocks * block
        if run["offering"][2] == "on_demand" or hours <= 4368:  # a longer run needs more than one block
            expected[f"property-{n}"] = billed
    assert sorted(w for w, *_ in found) == sorted(expected)
    for workload, instances, billed, price, parts, spend in found:
        assert billed == expected[workload]
        assert spend == instances * billed * price == parts
