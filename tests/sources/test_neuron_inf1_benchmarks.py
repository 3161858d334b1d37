"""AWS Neuron's Inf1 inference (the combined table) benchmarks: the source kit's checks."""

from tests.support.source_kit import SourceChecks


class TestNeuronInf1Benchmarks(SourceChecks):
    source_id = "neuron_inf1_benchmarks"
