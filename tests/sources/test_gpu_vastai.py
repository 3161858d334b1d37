"""Vast.ai marketplace offers (rentable): the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuVastai(SourceChecks):
    source_id = "gpu_vastai"
