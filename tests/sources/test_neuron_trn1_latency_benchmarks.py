"""AWS Neuron's Trn1 decoder latency benchmarks (CSV): the checks every source gets (tests/support/source_kit.py); its
reading is the Inf2 latency table's (test_neuron_inf2_latency_benchmarks.py)."""

from __future__ import annotations

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1LatencyBenchmarks(SourceChecks):
    source_id = "neuron_trn1_latency_benchmarks"
