"""Google's Cloud Billing Catalog, Cloud TPU SKUs (every page of the sample's answer): the checks every source gets
(tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestGpuGcpTpu(SourceChecks):
    source_id = "gpu_gcp_tpu"
