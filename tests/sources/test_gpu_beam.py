"""Beam serverless GPU pricing (per second, scale to zero).

The checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuBeam(SourceChecks):
    source_id = "gpu_beam"
