"""Google Cloud's GPU pricing page, machine-type tables: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuGcp(SourceChecks):
    source_id = "gpu_gcp"
