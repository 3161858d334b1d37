"""AWS Neuron's announcement: Neuron 2.19 the last release to support Tensorflow-Neuron 1.x: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceTensorflow1xLast(SourceChecks):
    source_id = "neuron_announce_tensorflow_1x_last"
