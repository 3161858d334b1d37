"""Source adapters: one module per page shape, each a `parse(body, source) -> batch` function.

Adapters are plain Python (no Dagster import) so the CLI, the assets, `reparse` and the tests share them.
Each adapter belongs to a kind, which decides what its batch is and where it lands:
`aws` -> SourceBatch (instance specs and prices), `gpu` -> GpuBatch (provider listings), `fx` -> FxBatch.
Each also names the media types its source may answer with: anything else (an error page served as
`text/plain`, a PDF) is refused before parsing. Modules are imported on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pydantic import ValidationError

from pipelines.errors import RecordInvalid

Parser = Callable[[bytes, Any], Any]

HTML = ("text/html", "application/xhtml+xml")
JSON = ("application/json",)
XML = ("text/xml", "application/xml")


@dataclass(frozen=True)
class AdapterInfo:
    module: str
    kind: str
    media_types: tuple[str, ...]


ADAPTERS: dict[str, AdapterInfo] = {
    "aws_product_page": AdapterInfo("pipelines.adapters.aws_product_page", "aws", HTML),
    "aws_capacity_blocks": AdapterInfo("pipelines.adapters.aws_capacity_blocks", "aws", HTML),
    "gpu_hyperstack": AdapterInfo("pipelines.adapters.gpu_hyperstack", "gpu", HTML),
    "gpu_lambda": AdapterInfo("pipelines.adapters.gpu_lambda", "gpu", HTML),
    "gpu_coreweave": AdapterInfo("pipelines.adapters.gpu_coreweave", "gpu", HTML),
    "gpu_runpod_graphql": AdapterInfo("pipelines.adapters.gpu_runpod_graphql", "gpu", JSON),
    "gpu_vastai": AdapterInfo("pipelines.adapters.gpu_vastai", "gpu", JSON),
    "gpu_leadergpu": AdapterInfo("pipelines.adapters.gpu_leadergpu", "gpu", JSON + HTML),
    "declarative_table": AdapterInfo("pipelines.adapters.declarative_table", "gpu", HTML),
    "fx_ecb": AdapterInfo("pipelines.adapters.fx_ecb", "fx", XML),
}


def adapter_names() -> list[str]:
    return sorted(ADAPTERS)


def adapter_kind(adapter: str) -> str:
    return ADAPTERS[adapter].kind


def media_types(adapter: str) -> tuple[str, ...]:
    return ADAPTERS[adapter].media_types


def adapter_module(adapter: str) -> ModuleType:
    return importlib.import_module(ADAPTERS[adapter].module)


def parser_for(adapter: str) -> Parser:
    """The adapter's parse, with record-level pydantic errors turned into the typed RecordInvalid."""
    parse = adapter_module(adapter).parse

    def typed_parse(body: bytes, source: Any) -> Any:
        try:
            return parse(body, source)
        except ValidationError as exc:
            raise RecordInvalid(source.id, exc) from exc

    return typed_parse


def parser_version(adapter: str) -> str:
    return adapter_module(adapter).PARSER_VERSION
