"""AWS EC2 Inf1 product page: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestAwsInf1(SourceChecks):
    source_id = "aws_inf1"
