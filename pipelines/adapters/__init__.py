"""Source adapters: one module per page shape, each a `parse(body, source) -> batch` function.

Adapters are plain Python (no Dagster import) so the CLI, the assets, `reparse` and the tests share them.
Each adapter belongs to a kind (pipelines/sources/adapter_registry.py), whose folder decides what its batch is and
where it lands (pipelines/kinds.py); a GPU adapter returns rows and its kind makes the batch around them.
Each also names the media types its source may answer with: anything else (an error page served as
`text/plain`, a PDF) is refused before parsing. Adapters that decode an HTML body themselves also take the
HTTP charset (`parse(body, source, *, charset=None)`), which outranks the page's <meta> charset. Modules are
imported on first use.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from pydantic import ValidationError

from pipelines.errors import RecordInvalid
from pipelines.sources.adapter_registry import ADAPTERS


class Parser(Protocol):
    def __call__(self, body: bytes | Path, source: Any, content_type: str | None = None) -> Any: ...


def adapter_module(adapter: str) -> ModuleType:
    return importlib.import_module(ADAPTERS[adapter].module)


def parser_for(adapter: str) -> Parser:
    """The adapter's parse, with record-level pydantic errors turned into the typed RecordInvalid.

    `content_type` is the response's Content-Type header: its charset reaches the adapters that read HTML.
    """
    from pipelines.fetch.encoding import charset_of  # not at the top: it loads bs4, which only parsing needs
    from pipelines.kinds import kind_named  # nor the kinds' pydantic models

    module = adapter_module(adapter)
    reads_html = ADAPTERS[adapter].reads_html
    batch_of = kind_named(ADAPTERS[adapter].kind).batch_of  # a GPU adapter reads rows; the batch is the kind's

    def typed_parse(body: bytes | Path, source: Any, content_type: str | None = None) -> Any:
        try:
            read = (
                module.parse(body, source, charset=charset_of(content_type))
                if reads_html
                else module.parse(body, source)
            )
            return batch_of(read, source, module)
        except ValidationError as exc:
            raise RecordInvalid(source.id, exc) from exc

    return typed_parse


def parser_version(adapter: str) -> str:
    version: str = adapter_module(adapter).PARSER_VERSION
    return version
