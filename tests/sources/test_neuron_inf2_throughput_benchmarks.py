"""AWS Neuron's Inf2 decoder throughput benchmarks (CSV): the checks every source gets
(tests/support/source_kit.py); its reading is the Inf2 latency table's (test_neuron_inf2_latency_benchmarks.py)."""

from __future__ import annotations

from tests.support.source_kit import SourceChecks


class TestNeuronInf2ThroughputBenchmarks(SourceChecks):
    source_id = "neuron_inf2_throughput_benchmarks"
