"""AWS Neuron's Inf2 vision CNN throughput benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2VisionCnnThroughputBenchmarks(SourceChecks):
    source_id = "neuron_inf2_vision_cnn_throughput_benchmarks"
