"""AWS Neuron docs: Inferentia chip: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronInferentia(SourceChecks):
    source_id = "neuron_inferentia"
