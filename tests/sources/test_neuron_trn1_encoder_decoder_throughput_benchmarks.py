"""AWS Neuron's Trn1 encoder-decoder throughput benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1EncoderDecoderThroughputBenchmarks(SourceChecks):
    source_id = "neuron_trn1_encoder_decoder_throughput_benchmarks"
