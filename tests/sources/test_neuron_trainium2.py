"""AWS Neuron docs: Trainium2 chip: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrainium2(SourceChecks):
    source_id = "neuron_trainium2"
