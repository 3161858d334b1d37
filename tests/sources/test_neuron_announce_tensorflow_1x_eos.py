"""AWS Neuron's announcement: Tensorflow-Neuron 1.x no longer supported from 2.20: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceTensorflow1xEos(SourceChecks):
    source_id = "neuron_announce_tensorflow_1x_eos"
