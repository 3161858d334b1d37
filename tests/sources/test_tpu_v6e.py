"""Google's Cloud TPU v6e page (its Markdown source): the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestTpuV6e(SourceChecks):
    source_id = "tpu_v6e"
