"""Source adapters: one module per page shape, each a `parse(body, source) -> batch` function.

Adapters are plain Python (no Dagster import) so the CLI, the assets, `reparse` and the tests share them.
Each adapter belongs to a kind, which decides what its batch is and where it lands:
`aws` -> SourceBatch (instance specs and prices), `gpu` -> GpuBatch (provider listings), `fx` -> FxBatch.
Modules are imported on first use, so the registry can name adapters the CLI never touches.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

Parser = Callable[[bytes, Any], Any]

# adapter name -> (module, kind)
ADAPTERS: dict[str, tuple[str, str]] = {
    "aws_product_page": ("pipelines.adapters.aws_product_page", "aws"),
    "aws_capacity_blocks": ("pipelines.adapters.aws_capacity_blocks", "aws"),
    "gpu_hyperstack": ("pipelines.adapters.gpu_hyperstack", "gpu"),
    "gpu_lambda": ("pipelines.adapters.gpu_lambda", "gpu"),
    "gpu_coreweave": ("pipelines.adapters.gpu_coreweave", "gpu"),
    "gpu_runpod_graphql": ("pipelines.adapters.gpu_runpod_graphql", "gpu"),
    "gpu_vastai": ("pipelines.adapters.gpu_vastai", "gpu"),
    "gpu_leadergpu": ("pipelines.adapters.gpu_leadergpu", "gpu"),
    "declarative_table": ("pipelines.adapters.declarative_table", "gpu"),
    "fx_ecb": ("pipelines.adapters.fx_ecb", "fx"),
}


def adapter_names() -> list[str]:
    return sorted(ADAPTERS)


def adapter_kind(adapter: str) -> str:
    return ADAPTERS[adapter][1]


def adapter_module(adapter: str) -> ModuleType:
    return importlib.import_module(ADAPTERS[adapter][0])


def parser_for(adapter: str) -> Parser:
    return adapter_module(adapter).parse


def parser_version(adapter: str) -> str:
    return adapter_module(adapter).PARSER_VERSION
