"""QuantaCloud GPU pricing: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuQuantacloud(SourceChecks):
    source_id = "gpu_quantacloud"
