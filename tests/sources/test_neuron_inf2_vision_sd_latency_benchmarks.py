"""AWS Neuron's Inf2 Stable Diffusion latency benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2VisionSdLatencyBenchmarks(SourceChecks):
    source_id = "neuron_inf2_vision_sd_latency_benchmarks"
