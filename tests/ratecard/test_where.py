"""`ratecard.where`, the Python API: the rows `ratecard where` shows, as an Arrow table with money as decimal128."""

from __future__ import annotations

import pyarrow as pa
import pytest

import ratecard


def test_the_python_api_gives_the_same_rows_as_an_arrow_table(demo_warehouse):
    table = ratecard.where("trn2", db=demo_warehouse)
    assert isinstance(table, pa.Table)
    assert pa.types.is_decimal(table.schema.field("cheapest_usd_per_accelerator_hour").type)
    assert table.select(["provider", "region_code", "price_kind_family", "cheapest_offering"]).to_pylist() == [
        {
            "provider": "AWS",
            "region_code": "us-east-2",
            "price_kind_family": "capacity_block",
            "cheapest_offering": "trn2.48xlarge",
        }
    ]
    with pytest.raises(ratecard.UnknownName, match="nearest: H100"):
        ratecard.where("H1000", db=demo_warehouse)
