"""AWS Neuron's Inf2 vision latency benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2VisionLatencyBenchmarks(SourceChecks):
    source_id = "neuron_inf2_vision_latency_benchmarks"
