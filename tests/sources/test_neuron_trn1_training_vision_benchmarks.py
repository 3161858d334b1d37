"""AWS Neuron's Trn1 vision-transformer training throughput benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1TrainingVisionBenchmarks(SourceChecks):
    source_id = "neuron_trn1_training_vision_benchmarks"
