"""AWS Neuron's Inf2 Stable Diffusion throughput benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2VisionSdThroughputBenchmarks(SourceChecks):
    source_id = "neuron_inf2_vision_sd_throughput_benchmarks"
