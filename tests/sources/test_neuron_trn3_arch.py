"""AWS Neuron docs: Trn3 Gen1/Gen2 UltraServers: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrn3Arch(SourceChecks):
    source_id = "neuron_trn3_arch"
