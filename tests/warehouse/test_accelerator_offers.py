"""accelerator_offers and accelerator_names on the demo warehouse: every current AWS price and GPU listing once, in
one shape, money exact, stock and region unknown left unknown; the names a search matches."""

from __future__ import annotations

from decimal import Decimal

import duckdb
import pytest

from warehouse.publish import snapshot_path


@pytest.fixture(scope="module")
def con(demo_warehouse):
    with duckdb.connect(str(snapshot_path(demo_warehouse)), read_only=True) as connection:
        yield connection


def rows(con, sql, params=()):
    return con.execute(sql, params).fetchall()


def test_every_current_price_and_listing_is_one_offer(con):
    ((aws,),), ((gpu,),) = (
        rows(con, "SELECT count(*) FROM aws_instance_prices"),
        rows(con, "SELECT count(*) FROM gpu_listings"),
    )
    counted = dict(rows(con, "SELECT offering_kind, count(*) FROM accelerator_offers GROUP BY ALL"))
    assert aws > 0 and gpu > 0
    assert counted == {"aws_instance": aws, "gpu_listing": gpu}


def test_money_is_the_source_views_exactly_as_decimal(con):
    types = dict(
        rows(con, "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'accelerator_offers'")
    )
    assert types["usd_per_accelerator_hour"] == types["usd_per_instance_hour"] == "DECIMAL(38,18)"
    differing_aws = rows(
        con,
        """SELECT p.instance_type FROM aws_instance_prices AS p
           ANTI JOIN accelerator_offers AS o
             ON o.offering = p.instance_type AND o.price_kind = p.price_kind AND o.source_id = p.source_id
            AND o.usd_per_accelerator_hour = p.usd_per_accelerator_hour
            AND o.usd_per_instance_hour = p.usd_per_instance_hour""",
    )
    assert differing_aws == []
    # A listing's offering-hour is its GPU-hour times its GPUs: LeaderGPU's 8 x H100 by the day.
    leader = rows(
        con,
        """SELECT usd_per_accelerator_hour, usd_per_instance_hour, accelerators_per_offering FROM accelerator_offers
           WHERE provider = 'LeaderGPU' AND offering = '8 pcs NVIDIA H100 / day' AND price_kind = 'on_demand'""",
    )
    assert len(leader) == 1 and leader[0][2] == 8 and leader[0][1] == leader[0][0] * 8


def test_unknown_stock_and_unstated_region_stay_null(con):
    (unknown,) = rows(con, "SELECT count(*) FROM gpu_listings WHERE stock_status = 'unknown'")[0]
    (null_stock,) = rows(
        con, "SELECT count(*) FROM accelerator_offers WHERE stock_status IS NULL AND offering_kind = 'gpu_listing'"
    )[0]
    assert unknown > 0 and null_stock == unknown
    assert rows(con, "SELECT DISTINCT stock_status FROM accelerator_offers WHERE provider = 'AWS'") == [(None,)]
    # The product pages name no region: NULL, never a default one.
    (unstated,) = rows(con, "SELECT count(*) FROM aws_instance_prices WHERE NOT region_stated")[0]
    (null_region,) = rows(con, "SELECT count(*) FROM accelerator_offers WHERE provider = 'AWS' AND region IS NULL")[0]
    assert unstated > 0 and null_region == unstated


def test_a_fractional_gpu_holds_its_share_and_a_trainium2_its_chip_memory(con):
    assert rows(
        con, "SELECT DISTINCT accelerators_per_offering FROM accelerator_offers WHERE offering = 'g6f.large'"
    ) == [(Decimal("0.125"),)]
    trn2 = rows(
        con,
        "SELECT accelerator_model, accelerators_per_offering, accelerator_memory_gib, accelerator_memory_basis, "
        "region, region_code FROM accelerator_offers "
        "WHERE offering = 'trn2.48xlarge' AND price_kind = 'capacity_block'",
    )
    assert [(m, int(n), int(g), b, r, c) for m, n, g, b, r, c in trn2] == [
        ("Trainium2", 16, 96, "neuron_docs", "US East (Ohio)", "us-east-2")
    ]


@pytest.mark.parametrize(
    ("name", "model", "variant"),
    [
        ("trn2", "Trainium2", None),
        ("nvidia h100", "H100", None),
        ("h100 sxm", "H100", "SXM"),
        ("AWS Trainium", "Trainium", None),
    ],
)
def test_the_catalog_names_an_accelerator_many_ways(con, name, model, variant):
    found = rows(
        con,
        "SELECT DISTINCT accelerator_model, accelerator_variant FROM accelerator_names WHERE lower(name) = lower(?)",
        [name],
    )
    assert found == [(model, variant)]
