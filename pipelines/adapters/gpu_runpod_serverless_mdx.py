"""RunPod Serverless pricing as its docs repository keeps it (github.com/runpod/docs: `serverless/pricing.mdx`, before
May 2025 `docs/serverless/pricing.md`): the page's Markdown source, read as a capture of docs.runpod.io's page.

The source is rendered to HTML (CommonMark with tables, markdown-it) and read by the page's own adapter,
pipelines.adapters.gpu_runpod_serverless: the same table found by its headers' meaning, the same billing terms read
from the page's own sentences. Front matter and MDX imports are text the renderer keeps as prose; MDX components
(`<Tip>`) pass as HTML. A version whose table is an imported snippet (`<GPUTable/>`, from August 2025) holds no
prices of its own and is refused by that adapter, naming what it did not find.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

from pipelines.adapters import gpu_runpod_serverless as page
from pipelines.errors import ParseError
from pipelines.gpu.records import GpuRows
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_runpod_serverless_mdx/1.0"
PROVIDER = page.PROVIDER

_RENDERER = MarkdownIt("commonmark", {"html": True}).enable("table")


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GpuRows:
    try:
        text = body.decode(charset or "utf-8")
    except (UnicodeDecodeError, LookupError) as exc:
        raise ParseError(source.id, f"the Markdown source is not {charset or 'utf-8'} text: {exc}") from exc
    html = "<html><body>" + _RENDERER.render(text) + "</body></html>"
    return page.parse(html.encode("utf-8"), source, charset="utf-8")
