"""AWS Neuron's Trn1/Trn1n NLP training throughput and MFU benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1TrainingNlpBenchmarks(SourceChecks):
    source_id = "neuron_trn1_training_nlp_benchmarks"
