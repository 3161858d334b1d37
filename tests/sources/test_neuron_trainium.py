"""AWS Neuron docs: Trainium chip: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrainium(SourceChecks):
    source_id = "neuron_trainium"
