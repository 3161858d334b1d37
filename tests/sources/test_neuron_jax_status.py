"""AWS Neuron docs, JAX support: the checks every source gets (tests/support/source_kit.py)."""

from tests.support.source_kit import SourceChecks


class TestNeuronJaxStatus(SourceChecks):
    source_id = "neuron_jax_status"
