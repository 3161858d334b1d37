"""AWS Neuron docs, vLLM on Neuron: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronVllmStatus(SourceChecks):
    source_id = "neuron_vllm_status"
