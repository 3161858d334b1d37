"""Crusoe Cloud pricing (GPU): the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuCrusoe(SourceChecks):
    source_id = "gpu_crusoe"
