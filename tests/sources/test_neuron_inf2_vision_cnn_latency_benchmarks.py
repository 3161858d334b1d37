"""AWS Neuron's Inf2 vision CNN latency benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2VisionCnnLatencyBenchmarks(SourceChecks):
    source_id = "neuron_inf2_vision_cnn_latency_benchmarks"
