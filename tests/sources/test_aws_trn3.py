"""AWS EC2 Trn3 product page: UltraServer configurations and claims.

The checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestAwsTrn3(SourceChecks):
    source_id = "aws_trn3"
