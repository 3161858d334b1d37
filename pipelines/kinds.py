"""Every kind of data ratecard holds: one line each, in the order their tables and views are made (a view may read
an earlier kind's views).

A kind is a folder of pipelines/ holding its records, suite, landing, SQL and Kind object. Its `__init__` is light:
it declares its part of the warehouse's schema (`SCHEMA`) and the kind its sources name (`SOURCE_KIND`). Importing
pipelines imports this registry, which hands every part to the warehouse (warehouse.sql_files); the refresh finds a
kind's Kind object here by name, imported on first use (it brings pydantic and Great Expectations). So no generic
module names a kind.
"""

from __future__ import annotations

import importlib
from functools import cache

from pipelines import across_kinds, aws, benchmarks, fx, gpu, neuron_gate, pilots, pricelist, specs
from pipelines.kind import Kind
from warehouse.sql_files import declare

KIND_FOLDERS = (
    aws,  # AWS instance prices from the product and Capacity Blocks pages
    fx,  # ECB reference rates
    gpu,  # GPU-provider listings, converted with the FX rates
    pricelist,  # AWS price-list files: regional offers, Savings Plans, spot
    specs,  # accelerator specifications, launch dates, vendor claims, the NVIDIA reference
    neuron_gate,  # the Neuron software gate: the package manifest, the docs' status statements, release dates
    benchmarks,  # vendor benchmarks: published throughput and latency, claims never used
    pilots,  # user input: pilots, migration plans, traffic profiles
    across_kinds,  # views over the kinds above: the change feed, value per unit
)

declare(folder.SCHEMA for folder in KIND_FOLDERS)


class UnknownKind(KeyError):
    """A name no kind folder declares as its SOURCE_KIND."""


@cache
def kind_named(name: str) -> Kind:
    """The Kind object of the folder whose sources declare `name` (`SourceSpec.kind`)."""
    folder = next((f for f in KIND_FOLDERS if name == f.SOURCE_KIND), None)
    if folder is None:
        raise UnknownKind(f"no kind folder in pipelines/kinds.py declares the kind {name!r}")
    kind: Kind = importlib.import_module(f"{folder.__name__}.kind").KIND
    return kind


def source_kind_names() -> list[str]:
    return [f.SOURCE_KIND for f in KIND_FOLDERS if f.SOURCE_KIND is not None]


@cache
def read_by_others() -> frozenset[str]:
    """The kinds whose landed rows another kind's prepare reads (FX, for GPU prices): their sources land first."""
    return frozenset(read for name in source_kind_names() for read in kind_named(name).reads_landed)
