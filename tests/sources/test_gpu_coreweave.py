"""CoreWeave GPU pricing (per instance): the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuCoreweave(SourceChecks):
    source_id = "gpu_coreweave"
