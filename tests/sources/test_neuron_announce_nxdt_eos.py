"""AWS Neuron's announcement: NxDT's last release, and the end of NxD Core training: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceNxdtEos(SourceChecks):
    source_id = "neuron_announce_nxdt_eos"
