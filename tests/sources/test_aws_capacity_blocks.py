"""Amazon EC2 Capacity Blocks for ML pricing: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestAwsCapacityBlocks(SourceChecks):
    source_id = "aws_capacity_blocks"
