"""Amazon SageMaker price list (Bulk API), one offer file per region.

The checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestAwsSageMaker(SourceChecks):
    source_id = "aws_sagemaker"
