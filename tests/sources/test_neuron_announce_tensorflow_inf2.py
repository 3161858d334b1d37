"""A dated AWS Neuron announcement: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceTensorflowInf2(SourceChecks):
    source_id = "neuron_announce_tensorflow_inf2"
