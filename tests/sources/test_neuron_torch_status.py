"""AWS Neuron docs, PyTorch support levels: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronTorchStatus(SourceChecks):
    source_id = "neuron_torch_status"
