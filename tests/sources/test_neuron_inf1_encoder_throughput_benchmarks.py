"""AWS Neuron's Inf1 encoder throughput benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf1EncoderThroughputBenchmarks(SourceChecks):
    source_id = "neuron_inf1_encoder_throughput_benchmarks"
