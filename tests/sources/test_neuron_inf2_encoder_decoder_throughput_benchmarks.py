"""AWS Neuron's Inf2 encoder-decoder throughput benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2EncoderDecoderThroughputBenchmarks(SourceChecks):
    source_id = "neuron_inf2_encoder_decoder_throughput_benchmarks"
