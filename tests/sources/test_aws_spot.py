"""AWS EC2 spot prices (public feed, indicative): the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestAwsSpot(SourceChecks):
    source_id = "aws_spot"
