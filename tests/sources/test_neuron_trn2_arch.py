"""AWS Neuron docs: Trn2 instances and Trn2 UltraServer: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrn2Arch(SourceChecks):
    source_id = "neuron_trn2_arch"
