"""AWS Neuron's Inf2 vision throughput benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2VisionThroughputBenchmarks(SourceChecks):
    source_id = "neuron_inf2_vision_throughput_benchmarks"
