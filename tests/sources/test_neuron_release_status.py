"""AWS Neuron SDK release notes, component statuses and release dates: the checks every source gets
(tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronReleaseStatus(SourceChecks):
    source_id = "neuron_release_status"
