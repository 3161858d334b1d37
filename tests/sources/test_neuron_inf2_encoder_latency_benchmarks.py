"""AWS Neuron's Inf2 encoder latency benchmarks: the source kit's checks (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2EncoderLatencyBenchmarks(SourceChecks):
    source_id = "neuron_inf2_encoder_latency_benchmarks"
