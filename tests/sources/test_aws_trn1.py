"""AWS EC2 Trn1 product page: the checks every source gets, and the exact records
its sample yields (tests/support/aws_pages.py's EXPECTED)."""

from pipelines.aws.records import PriceKind
from tests.support.aws_pages import D, check_records, parse, price_of
from tests.support.source_kit import SourceChecks


class TestAwsTrn1(SourceChecks):
    source_id = "aws_trn1"

    def test_the_sample_yields_exactly_these_records(self) -> None:
        check_records(self.source_id)


def test_trn1_on_demand_per_accelerator() -> None:
    batch = parse("aws_trn1")
    small = price_of(batch, "trn1.2xlarge", PriceKind.ON_DEMAND)
    assert small.usd_per_instance_hour == D("1.34")
    assert small.usd_per_accelerator_hour == D("1.34")
    assert str(small.usd_per_accelerator_hour_4dp) == "1.3400"
    large = price_of(batch, "trn1.32xlarge", PriceKind.ON_DEMAND)
    assert large.accelerator_count == 16
    assert large.usd_per_instance_hour == D("21.50")
    assert large.usd_per_accelerator_hour == D("1.34375")
    assert str(large.usd_per_accelerator_hour_4dp) == "1.3438"
