"""Source adapters: one module per page shape, each a `parse(body, source) -> batch` function.

Adapters are plain Python (no Dagster import) so the CLI, the assets, `reparse` and the tests share them.
Each adapter belongs to a kind, which decides what its batch is and where it lands:
`aws` -> SourceBatch (instance specs and prices), `gpu` -> GpuBatch (provider listings), `fx` -> FxBatch,
`spec` -> SpecBatch (accelerator specifications).
Each also names the media types its source may answer with: anything else (an error page served as
`text/plain`, a PDF) is refused before parsing. Adapters that decode an HTML body themselves also take the
HTTP charset (`parse(body, source, *, charset=None)`), which outranks the page's <meta> charset. Modules are
imported on first use.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from pydantic import ValidationError

from pipelines.errors import RecordInvalid


class Parser(Protocol):
    def __call__(self, body: bytes | Path, source: Any, content_type: str | None = None) -> Any: ...


HTML = ("text/html", "application/xhtml+xml")
JSON = ("application/json",)
XML = ("text/xml", "application/xml")
# The price list's CSV files come from S3-style hosts, which may label them generically.
CSV = ("text/csv", "application/csv", "application/octet-stream", "binary/octet-stream")
JAVASCRIPT = ("application/x-javascript", "application/javascript", "text/javascript")  # the spot feed's label


@dataclass(frozen=True)
class AdapterInfo:
    module: str
    kind: str
    media_types: tuple[str, ...]
    reads_html: bool = False  # parse() decodes the body as an HTML page, so takes the HTTP charset
    # parse() also takes a file: the body is streamed to disk and archived from there, never held in memory.
    reads_files: bool = False


ADAPTERS: dict[str, AdapterInfo] = {
    "aws_product_page": AdapterInfo("pipelines.adapters.aws_product_page", "aws", HTML, reads_html=True),
    "aws_capacity_blocks": AdapterInfo("pipelines.adapters.aws_capacity_blocks", "aws", HTML, reads_html=True),
    "gpu_hyperstack": AdapterInfo("pipelines.adapters.gpu_hyperstack", "gpu", HTML, reads_html=True),
    "gpu_lambda": AdapterInfo("pipelines.adapters.gpu_lambda", "gpu", HTML, reads_html=True),
    "gpu_coreweave": AdapterInfo("pipelines.adapters.gpu_coreweave", "gpu", HTML, reads_html=True),
    "gpu_runpod_graphql": AdapterInfo("pipelines.adapters.gpu_runpod_graphql", "gpu", JSON),
    "gpu_vastai": AdapterInfo("pipelines.adapters.gpu_vastai", "gpu", JSON),
    "gpu_leadergpu": AdapterInfo("pipelines.adapters.gpu_leadergpu", "gpu", JSON + HTML),
    "declarative_table": AdapterInfo("pipelines.adapters.declarative_table", "gpu", HTML, reads_html=True),
    "fx_ecb": AdapterInfo("pipelines.adapters.fx_ecb", "fx", XML),
    "neuron_chip": AdapterInfo("pipelines.adapters.neuron_chip", "spec", HTML, reads_html=True),
    "neuron_config": AdapterInfo("pipelines.adapters.neuron_config", "spec", HTML, reads_html=True),
    "neuron_release": AdapterInfo("pipelines.adapters.neuron_release", "spec", HTML, reads_html=True),
    "aws_ultraserver_page": AdapterInfo("pipelines.adapters.aws_ultraserver_page", "spec", HTML, reads_html=True),
    "vendor_claims": AdapterInfo("pipelines.adapters.vendor_claims", "spec", HTML, reads_html=True),
    "launch_dates": AdapterInfo("pipelines.adapters.launch_dates", "spec", JSON),
    "nvidia_reference": AdapterInfo("pipelines.adapters.nvidia_reference", "spec", JSON),
    "aws_pricelist_region": AdapterInfo("pipelines.adapters.aws_pricelist_region", "pricelist", CSV, reads_files=True),
    "aws_spot_feed": AdapterInfo("pipelines.adapters.aws_spot_feed", "pricelist", JSON + JAVASCRIPT),
}


def adapter_names() -> list[str]:
    return sorted(ADAPTERS)


def adapter_kind(adapter: str) -> str:
    return ADAPTERS[adapter].kind


def reads_files(adapter: str) -> bool:
    return ADAPTERS[adapter].reads_files


def media_types(adapter: str) -> tuple[str, ...]:
    return ADAPTERS[adapter].media_types


def adapter_module(adapter: str) -> ModuleType:
    return importlib.import_module(ADAPTERS[adapter].module)


def parser_for(adapter: str) -> Parser:
    """The adapter's parse, with record-level pydantic errors turned into the typed RecordInvalid.

    `content_type` is the response's Content-Type header: its charset reaches the adapters that read HTML.
    """
    from pipelines.fetch.encoding import charset_of  # not at the top: it loads bs4, which only parsing needs

    parse = adapter_module(adapter).parse
    reads_html = ADAPTERS[adapter].reads_html

    def typed_parse(body: bytes | Path, source: Any, content_type: str | None = None) -> Any:
        try:
            if reads_html:
                return parse(body, source, charset=charset_of(content_type))
            return parse(body, source)
        except ValidationError as exc:
            raise RecordInvalid(source.id, exc) from exc

    return typed_parse


def parser_version(adapter: str) -> str:
    version: str = adapter_module(adapter).PARSER_VERSION
    return version
