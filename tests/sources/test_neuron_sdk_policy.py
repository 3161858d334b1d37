"""AWS Neuron's SDK maintenance policy, its life-cycle phases: the checks every source gets
(tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronSdkPolicy(SourceChecks):
    source_id = "neuron_sdk_policy"
