"""The soak's invariants catch what they are for, on a copy of the demo warehouse: each one is broken on purpose
and must name it (the soak itself, a month long, is `make soak`)."""

from __future__ import annotations

import random
import shutil
from datetime import date, timedelta

import duckdb
import pytest

from bench import soak_checks
from bench.soak_world import World
from pipelines.sources.file import NotifySettings
from warehouse.publish import snapshot_path


@pytest.fixture
def warehouse(demo_warehouse, tmp_path):
    copy = tmp_path / "prices.duckdb"
    shutil.copy(demo_warehouse, copy)
    shutil.copy(snapshot_path(demo_warehouse), snapshot_path(copy))
    return copy


def test_the_intact_demo_passes_every_invariant(warehouse):
    with duckdb.connect(str(warehouse), read_only=True) as con:
        prints = soak_checks.open_fingerprints(con)
        assert soak_checks.overlapping_versions(con) == []
        assert soak_checks.lost_versions(prints, prints, {}) == []
        assert soak_checks.feed_problems(con, 0, NotifySettings(), last_failed=True) == []
    assert soak_checks.snapshot_differences(warehouse, snapshot_path(warehouse)) == []
    assert {"gpu_listing_history", "aws_instance_price_history"} <= {t.name for t in soak_checks.versioned_tables()}


def test_each_broken_invariant_is_named(warehouse):
    with duckdb.connect(str(warehouse)) as con:
        before = soak_checks.open_fingerprints(con)
        # A second open version of one listing (an overlap), and a price changed with nothing landed (a loss).
        con.execute(
            "INSERT INTO gpu_listing_history SELECT * FROM gpu_listing_history "
            "WHERE valid_to IS NULL AND source_id = 'gpu_hyperstack' LIMIT 1"
        )
        con.execute(
            "UPDATE aws_instance_price_history SET usd_per_instance_hour = usd_per_instance_hour + 1 "
            "WHERE source_id = 'aws_trn1' AND valid_to IS NULL"
        )
        after = soak_checks.open_fingerprints(con)
        overlaps = soak_checks.overlapping_versions(con)
        con.execute("CHECKPOINT")
    lost = soak_checks.lost_versions(before, after, {"gpu_hyperstack": (["landed"], 0)})
    assert overlaps == ["gpu_listing_history: 1 version(s) overlapping the next or ending before they start"]
    assert [line.split(":")[0] for line in lost] == ["aws_instance_price_history aws_trn1"]
    # the working file now differs from what was published
    assert "aws_instance_prices" in " ".join(soak_checks.snapshot_differences(warehouse, snapshot_path(warehouse)))
    outcomes = {"gpu_lambda": (["fetch_failed"], 0), "aws_pricelist_us_east_1": (["landed"], 0)}
    assert soak_checks.unaccounted_days(outcomes, ["gpu_lambda", "aws_pricelist", "fx_ecb"]) == [
        "fx_ecb: no fetch_log row for the day",
        "gpu_lambda: nothing landed and no failure recorded (['fetch_failed'])",
    ]


def test_the_world_changes_a_little_each_day_and_a_seed_gives_the_same_month(tmp_path):
    days = [date(2027, 1, 1) + timedelta(days=n) for n in range(6)]
    months = []
    for name in ("a", "b"):
        world = World(tmp_path / name, random.Random("7"))
        months.append([world.next_day(day) for day in days])
    assert months[0] == months[1]
    said = " ".join(change for day in months[0] for change in day)
    assert "ECB rates dated 2027-01-05" in said and "Trn1 page restyled" in said and "Azure" in said
