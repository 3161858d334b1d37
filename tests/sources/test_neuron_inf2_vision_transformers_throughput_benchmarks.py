"""AWS Neuron's Inf2 vision-transformer throughput benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2VisionTransformersThroughputBenchmarks(SourceChecks):
    source_id = "neuron_inf2_vision_transformers_throughput_benchmarks"
