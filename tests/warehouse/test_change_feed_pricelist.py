"""price_changes over the AWS price-list history: moves per region and reserved offer, removals, and a region's
first landing is not news."""

from __future__ import annotations

from tests.support.pricelist_factory import batch, land, price, reserved, us_east_1
from warehouse.db import connect


def test_price_list_moves_and_removals_per_region_and_offer(tmp_path):
    with connect(tmp_path / "pl.duckdb") as con:
        land(con, batch(us_east_1()), 0)
        moved = [
            price("trn1.32xlarge", "21.50"),
            price("trn1.2xlarge", "1.50"),  # +11.94 %
            reserved("trn1.32xlarge", "8.00", "70000"),
            reserved("trn1.32xlarge", "0", "150000", years=3, option=us_east_1()[4].purchase_option),
        ]  # p5.48xlarge gone
        land(con, batch(moved), 1)
        land(con, batch([price("trn1.2xlarge", "1.40", "us-west-2")], "us-west-2"), 1)  # a new region: no news
        rows = con.execute("""SELECT change, offering, price_kind, region, change_pct FROM price_changes
                              WHERE family = 'aws_pricelist' ORDER BY change, offering, price_kind""").fetchall()
    assert [(c, o, k, r, None if p is None else str(p)) for c, o, k, r, p in rows] == [
        ("price", "trn1.2xlarge", "on_demand", "us-east-1", "11.94"),
        ("price", "trn1.32xlarge", "reserved_3y all upfront standard", "us-east-1", "-16.67"),
        ("removed", "p5.48xlarge", "on_demand", "us-east-1", None),
    ]
