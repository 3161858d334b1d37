"""AWS Neuron's Trn1 encoder-decoder latency benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1EncoderDecoderLatencyBenchmarks(SourceChecks):
    source_id = "neuron_trn1_encoder_decoder_latency_benchmarks"
