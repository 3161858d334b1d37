"""AWS Neuron's Inf2 encoder throughput benchmarks: the source kit's checks (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf2EncoderThroughputBenchmarks(SourceChecks):
    source_id = "neuron_inf2_encoder_throughput_benchmarks"
