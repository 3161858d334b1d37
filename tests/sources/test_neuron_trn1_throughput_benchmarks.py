"""AWS Neuron's Trn1 decoder throughput benchmarks (CSV): the checks every source gets (tests/support/source_kit.py);
its reading is the Inf2 table's (test_neuron_inf2_latency_benchmarks.py)."""

from __future__ import annotations

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1ThroughputBenchmarks(SourceChecks):
    source_id = "neuron_trn1_throughput_benchmarks"
