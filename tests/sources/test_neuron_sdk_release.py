"""AWS Neuron SDK release notes (latest release): the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronSdkRelease(SourceChecks):
    source_id = "neuron_sdk_release"
