"""Vendor benchmarks (kind `vendor_benchmark`): the throughput and latency figures AWS publishes for models on its
Neuron instances (the Neuron documentation's benchmark tables), each at the SDK release, batch and lengths it
states. They are the vendor's claims: shown beside a decision as "vendor benchmark, not your pilot", never an input
to a verdict."""

from __future__ import annotations

from pathlib import Path

from warehouse.sql_files import SchemaPart

SOURCE_KIND: str | None = "vendor_benchmark"
SCHEMA = SchemaPart("benchmarks", Path(__file__).resolve().parent / "sql")
