"""A dated AWS Neuron announcement: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnouncePytorchXlaInference(SourceChecks):
    source_id = "neuron_announce_pytorch_xla_inference"
