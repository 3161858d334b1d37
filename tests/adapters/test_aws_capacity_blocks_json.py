"""A scraper's JSON of the Capacity Blocks page, read as a capture: exact rates, the region as printed, specs that
state only the accelerator and its count, an UltraServer reported, and a file of another shape refused by name."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.adapters.aws_capacity_blocks_json import parse
from pipelines.errors import ParseError
from pipelines.sources.file import load_sources
from tests.support.paths import RECORDED

SOURCE = next(s for s in load_sources() if s.id == "aws_capacity_blocks")
FIRST = RECORDED / "capacity_blocks_json" / "pricing-45e3e84db470.json"


def test_the_first_capture_gives_every_row_exactly():
    batch = parse(FIRST.read_bytes(), SOURCE)
    prices = {(p.instance_type, p.region): p for p in batch.prices}
    trn2 = prices["trn2.48xlarge", "US East (Ohio)"]
    assert (trn2.usd_per_instance_hour, trn2.accelerator_count) == (Decimal("35.7608"), 16)
    assert trn2.printed_usd_per_accelerator_hour == Decimal("2.235")
    assert trn2.usd_per_accelerator_hour_4dp == Decimal("2.2351")  # derived: 35.7608 / 16, half up
    assert prices["trn1.32xlarge", "US East (N. Virginia)"].usd_per_instance_hour == Decimal("9.532")
    assert len(batch.prices) == 58  # 60 rows, less the two UltraServers'
    specs = {s.instance_type: s for s in batch.specs}
    assert (specs["trn2.48xlarge"].accelerator, specs["trn2.48xlarge"].accelerator_memory_value) == ("Trainium2", None)
    assert batch.warnings == [
        "'u-p6e-gb200x72' is an UltraServer, not an instance type: not read",
        "'u-p6e-gb200x36' is an UltraServer, not an instance type: not read",
    ]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"[1, 2]", "a JSON list, not an object"),
        (b'{"instance_types": {"trn2.48xlarge": {"pricing": "none"}}}', "no mapping of instance types"),
        (b'{"t": {"trn2.48xlarge": {"accelerator_type": "", "pricing": []}}}', "accelerator_count is None"),
    ],
)
def test_another_shape_is_refused_naming_the_source(body, said):
    with pytest.raises(ParseError, match="aws_capacity_blocks") as raised:
        parse(body, SOURCE)
    assert said in str(raised.value)


def test_a_row_without_a_price_is_refused_alone():
    body = (
        b'{"t": {"trn2.48xlarge": {"accelerator_type": "Trainium2", "accelerator_count": 16, "pricing": ['
        b'{"region": "US East (Ohio)", "hourly_rate_usd": 0}, {"region": "US West (Oregon)", "hourly_rate_usd": 35.5}'
        b"]}}}"
    )
    batch = parse(body, SOURCE)
    assert [(p.region, p.usd_per_instance_hour) for p in batch.prices] == [("US West (Oregon)", Decimal("35.5"))]
    assert batch.warnings == ["instance_types.trn2.48xlarge.pricing[0]: rate 0 (None) is no price: not read"]
