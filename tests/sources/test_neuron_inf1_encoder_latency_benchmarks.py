"""AWS Neuron's Inf1 encoder latency benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf1EncoderLatencyBenchmarks(SourceChecks):
    source_id = "neuron_inf1_encoder_latency_benchmarks"
