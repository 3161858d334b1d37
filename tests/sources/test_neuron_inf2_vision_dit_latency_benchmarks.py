"""AWS Neuron's Inf2 diffusion-transformer latency benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2VisionDitLatencyBenchmarks(SourceChecks):
    source_id = "neuron_inf2_vision_dit_latency_benchmarks"
