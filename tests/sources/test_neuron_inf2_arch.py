"""AWS Neuron docs: Inf2 instance sizes: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2Arch(SourceChecks):
    source_id = "neuron_inf2_arch"
