"""AWS Neuron's Trn1 decoder throughput benchmarks (CSV): the checks every source gets (tests/support/source_kit.py);
its reading is the Inf2 table's (test_neuron_inf2_benchmarks.py)."""

from __future__ import annotations

from tests.support.source_kit import SourceChecks


class TestNeuronTrn1Benchmarks(SourceChecks):
    source_id = "neuron_trn1_benchmarks"
