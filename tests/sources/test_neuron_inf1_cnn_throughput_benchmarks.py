"""AWS Neuron's Inf1 CNN throughput benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf1CnnThroughputBenchmarks(SourceChecks):
    source_id = "neuron_inf1_cnn_throughput_benchmarks"
