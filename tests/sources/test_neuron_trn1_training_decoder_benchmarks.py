"""AWS Neuron's Trn1 decoder training benchmarks: the source kit's checks (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1TrainingDecoderBenchmarks(SourceChecks):
    source_id = "neuron_trn1_training_decoder_benchmarks"
