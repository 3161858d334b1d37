"""AWS Neuron's announcement: Transformers NeuronX in maintenance mode from 2.24: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceTransformersNeuronx(SourceChecks):
    source_id = "neuron_announce_transformers_neuronx"
