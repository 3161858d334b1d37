"""AWS Neuron's announcement: Tensorflow-Neuron 1.x in maintenance mode from 2.18: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceTensorflow1xMaintenance(SourceChecks):
    source_id = "neuron_announce_tensorflow_1x_maintenance"
