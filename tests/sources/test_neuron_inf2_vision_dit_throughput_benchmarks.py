"""AWS Neuron's Inf2 diffusion-transformer throughput benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2VisionDitThroughputBenchmarks(SourceChecks):
    source_id = "neuron_inf2_vision_dit_throughput_benchmarks"
