"""RunPod Serverless GPU pricing (per second, scale to zero).

The checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuRunpodServerless(SourceChecks):
    source_id = "gpu_runpod_serverless"
