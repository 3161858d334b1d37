"""AWS Neuron's announcement: MXNet (mxnet-neuron) in maintenance mode from 2.19: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceMxnet(SourceChecks):
    source_id = "neuron_announce_mxnet"
