"""RunPod GPU types (GraphQL API): the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuRunpod(SourceChecks):
    source_id = "gpu_runpod"
