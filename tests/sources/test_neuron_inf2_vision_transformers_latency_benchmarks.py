"""AWS Neuron's Inf2 vision-transformer latency benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2VisionTransformersLatencyBenchmarks(SourceChecks):
    source_id = "neuron_inf2_vision_transformers_latency_benchmarks"
