"""AWS Neuron docs: Trainium3 chip: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrainium3(SourceChecks):
    source_id = "neuron_trainium3"
