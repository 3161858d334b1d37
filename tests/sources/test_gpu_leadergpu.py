"""LeaderGPU servers (EUR, HTML inside JSON): the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuLeadergpu(SourceChecks):
    source_id = "gpu_leadergpu"
