"""AWS Neuron's announcement: torch-neuron 1.9 and 1.10 in maintenance mode from 2.20: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceTorchNeuronVersionsMaintenance(SourceChecks):
    source_id = "neuron_announce_torch_neuron_versions_maintenance"
