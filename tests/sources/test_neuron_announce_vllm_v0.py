"""AWS Neuron's announcement: vLLM V0 no longer supported from 2.28: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronAnnounceVllmV0(SourceChecks):
    source_id = "neuron_announce_vllm_v0"
