"""Azure Retail Prices API, GPU VM sizes (every page of the sample's answer): the checks every source gets
(tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuAzure(SourceChecks):
    source_id = "gpu_azure"
