"""AWS Neuron's Trn1 encoder latency benchmarks: the source kit's checks (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1EncoderLatencyBenchmarks(SourceChecks):
    source_id = "neuron_trn1_encoder_latency_benchmarks"
