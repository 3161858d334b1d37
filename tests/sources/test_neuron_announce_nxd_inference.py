"""A dated AWS Neuron announcement: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceNxdInference(SourceChecks):
    source_id = "neuron_announce_nxd_inference"
