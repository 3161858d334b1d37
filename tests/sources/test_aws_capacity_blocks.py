"""Amazon EC2 Capacity Blocks for ML pricing: the checks every source gets, and the exact records
its sample yields (tests/support/aws_pages.py's EXPECTED)."""

from pipelines.aws.records import PriceKind
from tests.support.aws_pages import D, check_records, parse, price_of
from tests.support.source_kit import SourceChecks


class TestAwsCapacityBlocks(SourceChecks):
    source_id = "aws_capacity_blocks"

    def test_the_sample_yields_exactly_these_records(self) -> None:
        check_records(self.source_id)


def test_capacity_block_trn2() -> None:
    batch = parse("aws_capacity_blocks")
    price = price_of(batch, "trn2.48xlarge", PriceKind.CAPACITY_BLOCK, "US East (Ohio)")
    assert price.usd_per_instance_hour == D("35.7608")
    assert price.accelerator_count == 16
    assert price.usd_per_accelerator_hour == D("2.23505")
    assert str(price.usd_per_accelerator_hour_4dp) == "2.2351"
    assert str(price.printed_usd_per_accelerator_hour) == "2.235"
    assert price.region_stated is True


def test_capacity_blocks_page_yields_only_capacity_block_prices_with_regions() -> None:
    prices = parse("aws_capacity_blocks").prices
    assert len(prices) == 4
    assert {p.price_kind for p in prices} == {PriceKind.CAPACITY_BLOCK}
    assert all(p.region_stated and p.region for p in prices)
