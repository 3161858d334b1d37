"""Oracle Cloud's price list, GPU parts: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuOci(SourceChecks):
    source_id = "gpu_oci"
