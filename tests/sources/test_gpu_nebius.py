"""Nebius AI Cloud prices (GPU): the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuNebius(SourceChecks):
    source_id = "gpu_nebius"
