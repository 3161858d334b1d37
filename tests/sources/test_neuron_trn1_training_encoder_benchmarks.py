"""AWS Neuron's Trn1 encoder training benchmarks: the source kit's checks (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1TrainingEncoderBenchmarks(SourceChecks):
    source_id = "neuron_trn1_training_encoder_benchmarks"
