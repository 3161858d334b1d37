"""AWS EC2 Inf1 product page: the checks every source gets, and the exact records
its sample yields (tests/support/aws_pages.py's EXPECTED)."""

from pipelines.aws.records import PriceKind
from tests.support.aws_pages import INF1_BASIS, D, check_records, parse, price_of
from tests.support.source_kit import SourceChecks


class TestAwsInf1(SourceChecks):
    source_id = "aws_inf1"

    def test_the_sample_yields_exactly_these_records(self) -> None:
        check_records(self.source_id)


def test_inf1_price_and_derived_memory() -> None:
    batch = parse("aws_inf1")
    price = price_of(batch, "inf1.xlarge", PriceKind.ON_DEMAND)
    assert price.usd_per_instance_hour == D("0.228")
    for spec in batch.specs:
        assert spec.accelerator_memory_derived is True
        assert spec.accelerator_memory_unit == "GiB"
        assert spec.accelerator_memory_value == D(8) * spec.accelerator_count
        assert spec.accelerator_memory_gib == D(8) * spec.accelerator_count
        assert spec.accelerator_memory_basis == INF1_BASIS
        assert "8 GiB" in spec.accelerator_memory_basis
