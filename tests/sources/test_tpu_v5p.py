"""Google's Cloud TPU v5p page (its Markdown source): the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestTpuV5p(SourceChecks):
    source_id = "tpu_v5p"
