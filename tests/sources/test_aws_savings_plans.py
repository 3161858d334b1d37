"""AWS Savings Plans rates (Bulk API), one rate file per region.

The checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestAwsSavingsPlans(SourceChecks):
    source_id = "aws_savings_plans"
