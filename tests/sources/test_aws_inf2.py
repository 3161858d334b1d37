"""AWS EC2 Inf2 product page: the checks every source gets, and the exact records
its sample yields (tests/support/aws_pages.py's EXPECTED)."""

from pipelines.aws.records import PriceKind
from tests.support.aws_pages import D, check_records, parse, price_of
from tests.support.source_kit import SourceChecks


class TestAwsInf2(SourceChecks):
    source_id = "aws_inf2"

    def test_the_sample_yields_exactly_these_records(self) -> None:
        check_records(self.source_id)


def test_inf2_memory_as_printed() -> None:
    batch = parse("aws_inf2")
    specs = {s.instance_type: s for s in batch.specs}
    for instance_type, usd in (("inf2.xlarge", "0.76"), ("inf2.8xlarge", "1.97")):
        assert specs[instance_type].accelerator_memory_value == D(32)
        assert specs[instance_type].accelerator_memory_unit == "GB"
        assert specs[instance_type].accelerator_memory_derived is False
        assert specs[instance_type].accelerator_memory_basis is None
        assert price_of(batch, instance_type, PriceKind.ON_DEMAND).usd_per_instance_hour == D(usd)
