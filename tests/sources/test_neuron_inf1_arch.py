"""AWS Neuron docs: Inf1 instance sizes: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf1Arch(SourceChecks):
    source_id = "neuron_inf1_arch"
