"""AWS Neuron's announcement: NxDT and NxD Core Training APIs in maintenance mode from 2.30: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceNxdTraining(SourceChecks):
    source_id = "neuron_announce_nxd_training"
