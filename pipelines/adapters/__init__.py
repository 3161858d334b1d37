"""Source adapters: one module per page shape, each a `parse(body, source) -> SourceBatch` function.

Adapters are plain Python (no Dagster import) so the CLI, the assets, `reparse` and the tests share them.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from pipelines.adapters import aws_capacity_blocks, aws_product_page
from pipelines.sources import SourceSpec
from schemas.records import SourceBatch

Parser = Callable[[bytes, SourceSpec], SourceBatch]

_MODULES: dict[str, ModuleType] = {
    "aws_product_page": aws_product_page,
    "aws_capacity_blocks": aws_capacity_blocks,
}


def adapter_names() -> list[str]:
    return sorted(_MODULES)


def parser_for(adapter: str) -> Parser:
    return _MODULES[adapter].parse


def parser_version(adapter: str) -> str:
    return _MODULES[adapter].PARSER_VERSION
