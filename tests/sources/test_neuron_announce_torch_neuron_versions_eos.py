"""AWS Neuron's announcement: torch-neuron 1.9 and 1.10 no longer supported from 2.21: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceTorchNeuronVersionsEos(SourceChecks):
    source_id = "neuron_announce_torch_neuron_versions_eos"
