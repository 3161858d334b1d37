"""AWS EC2 Trn2 product page: the checks every source gets, and the exact records
its sample yields (tests/support/aws_pages.py's EXPECTED)."""

import pytest

from tests.support.aws_pages import check_records, parse
from tests.support.source_kit import SourceChecks


class TestAwsTrn2(SourceChecks):
    source_id = "aws_trn2"

    def test_the_sample_yields_exactly_these_records(self) -> None:
        check_records(self.source_id)


@pytest.mark.parametrize("source_id", ["aws_trn2"])
def test_spec_only_pages_yield_specs_and_no_prices(source_id: str) -> None:
    batch = parse(source_id)
    assert len(batch.specs) == 1
    assert batch.prices == []
