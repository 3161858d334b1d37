"""accelerator_availability on the demo warehouse: one row per model, provider, region and price kind family of the
current offers, their cheapest price exactly; and, on a copy whose history a test rewrites, a listing that is gone
kept with when it was first and last seen."""

from __future__ import annotations

import shutil
from datetime import timedelta

import duckdb
import pytest

from warehouse.publish import snapshot_path

KEY = "accelerator_model, accelerator_variant, provider, coalesce(region_code, region), price_kind_family"


@pytest.fixture(scope="module")
def con(demo_warehouse):
    with duckdb.connect(str(snapshot_path(demo_warehouse)), read_only=True) as connection:
        yield connection


def test_every_current_offer_is_counted_once_and_the_cheapest_is_its_groups_minimum(con):
    expected = con.execute(
        f"SELECT {KEY}, count(*), min(usd_per_accelerator_hour) FROM accelerator_offers"
        " WHERE accelerator_model IS NOT NULL GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    found = con.execute(
        f"SELECT {KEY}, offers_now, cheapest_usd_per_accelerator_hour FROM accelerator_availability"
        " WHERE listed_now ORDER BY ALL"
    ).fetchall()
    assert len(found) > 50 and found == expected
    types = dict(
        con.execute(
            "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'accelerator_availability'"
        ).fetchall()
    )
    assert types["cheapest_usd_per_accelerator_hour"] == "DECIMAL(38,18)"


def test_trainium2_is_a_capacity_block_in_ohio_seen_since_its_landing(con):
    rows = con.execute(
        """SELECT provider, region, region_code, price_kind_family, cheapest_offering, first_seen_at, last_seen_at,
                  fetched_at, source_id
           FROM accelerator_availability WHERE accelerator_model = 'Trainium2'"""
    ).fetchall()
    assert [r[:5] for r in rows] == [("AWS", "US East (Ohio)", "us-east-2", "capacity_block", "trn2.48xlarge")]
    first, last, fetched, source = rows[0][5:]
    assert first == fetched and last >= first and source == "aws_capacity_blocks"


def test_a_spot_price_naming_only_its_code_takes_the_regions_name(con):
    spot = con.execute(
        "SELECT DISTINCT region FROM accelerator_availability WHERE price_kind_family = 'spot' AND provider = 'AWS'"
    ).fetchall()
    assert spot and all(region != code for (region,) in spot for code in ("us-east-1", "us-east-2"))


def test_an_unstated_region_stays_null(con):
    (unstated,) = con.execute(
        "SELECT count(*) FROM accelerator_availability WHERE region IS NULL AND region_code IS NULL"
    ).fetchone()
    (listings,) = con.execute(
        "SELECT count(*) FROM (SELECT DISTINCT accelerator_model, accelerator_variant, provider, price_kind_family"
        " FROM accelerator_offers WHERE region IS NULL AND accelerator_model IS NOT NULL)"
    ).fetchone()
    assert unstated == listings > 0


def test_a_listing_gone_is_kept_with_when_it_was_first_and_last_seen(demo_warehouse, tmp_path):
    copy = tmp_path / "prices.duckdb"  # the snapshot's history rewritten: a later fetch saw it, the next lost it
    shutil.copy(snapshot_path(demo_warehouse), copy)
    with duckdb.connect(str(copy)) as con:
        source, fetched = con.execute(
            "SELECT source_id, fetched_at FROM gpu_listing_history WHERE provider = 'CoreWeave' LIMIT 1"
        ).fetchone()
        seen, lost = fetched + timedelta(days=1), fetched + timedelta(days=2)
        con.execute(
            "INSERT INTO fetch_log (source_id, url, fetched_at, outcome) VALUES (?, 'u', ?, 'unchanged'),"
            " (?, 'u', ?, 'landed')",
            [source, seen, source, lost],
        )
        con.execute("UPDATE gpu_listing_history SET valid_to = ? WHERE gpu_model = 'B200'", [lost])
        rows = con.execute(
            """SELECT provider, listed_now, offers_now, cheapest_usd_per_accelerator_hour, first_seen_at,
                      last_seen_at, source_id
               FROM accelerator_availability WHERE accelerator_model = 'B200' AND provider = 'CoreWeave'"""
        ).fetchall()
        others = con.execute(
            "SELECT last_seen_at FROM accelerator_availability WHERE provider = 'CoreWeave' AND listed_now"
        ).fetchall()
    assert rows == [("CoreWeave", False, 0, None, fetched, seen, source)]
    assert others and {last for (last,) in others} == {lost}  # the fetch that lost B200 still saw the rest
