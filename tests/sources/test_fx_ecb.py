"""ECB euro foreign exchange reference rates: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestFxEcb(SourceChecks):
    source_id = "fx_ecb"
