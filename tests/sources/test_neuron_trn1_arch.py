"""AWS Neuron docs: Trn1/Trn1n instance sizes: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1Arch(SourceChecks):
    source_id = "neuron_trn1_arch"
