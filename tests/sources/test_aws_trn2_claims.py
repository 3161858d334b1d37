"""AWS EC2 Trn2 product page: vendor claims: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestAwsTrn2Claims(SourceChecks):
    source_id = "aws_trn2_claims"
