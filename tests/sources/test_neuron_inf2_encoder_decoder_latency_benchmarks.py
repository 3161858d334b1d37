"""AWS Neuron's Inf2 encoder-decoder latency benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2EncoderDecoderLatencyBenchmarks(SourceChecks):
    source_id = "neuron_inf2_encoder_decoder_latency_benchmarks"
