"""AWS Neuron docs: Inferentia2 chip: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronInferentia2(SourceChecks):
    source_id = "neuron_inferentia2"
