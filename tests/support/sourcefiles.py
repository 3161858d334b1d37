"""Sources files for tests: the declared sources pointed at a local server, and the media type each sample is
served with."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from pipelines.fetch.offline import pointed_at, sample_for
from pipelines.fetch.pages import NextPage, PageText, envelope
from pipelines.pricelist.region_index import parse_region_index
from pipelines.refresh.fan_out import reads_index
from pipelines.sources.file import SourceSpec, sample_path
from pipelines.sources.locations import SAMPLES_DIR
from pipelines.sources.toml_writer import sources_toml
from tests.support.localserver import LocalServer


def write_sources_file(path: Path, sources: list[SourceSpec], base_url: str) -> Path:
    """A sources file declaring the same sources, each at `base_url/<sample path>`."""
    path.write_text(sources_toml(pointed_at(sources, base_url)))
    return path


MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".xml": "text/xml",
    ".csv": "text/csv",
    ".rst": "text/plain; charset=utf-8",  # as GitHub's raw host serves an RST source
    ".txt": "text/plain; charset=utf-8",  # a page's Markdown source (Google's `<page>.md.txt`)
}


def media_type_of(path: Path) -> str:
    return MEDIA_TYPES[path.suffix]


def sample_routes(source: SourceSpec) -> list[tuple[str, Path]]:
    """(URL path, sample file) a local server answers for a source: its sample at /<sample path>, and for a
    price-list region index also each region's offer file at the path the index names (AWS's layout)."""
    routes = [(f"/{source.sample}", sample_path(source))]
    if reads_index(source):  # the EC2 index (an object) or the Savings Plans one (an array)
        index = parse_region_index(sample_path(source).read_bytes(), source.id, "http://127.0.0.1/")
        folder = sample_path(source).parent
        routes += [(urlsplit(offer.csv_url).path, folder / f"{offer.region_code}.csv") for offer in index.regions]
    if source.paging is not None:  # the samples page by link or by token
        routes += later_pages(source)
    return routes


def later_pages(source: SourceSpec) -> list[tuple[str, Path]]:
    """(path with query, sample) for each page after the first that the sample's links or tokens name, as the pager
    asks for it (a link's path and query on the first page's host; the first page's path with the token) and the
    offline server answers it."""
    assert source.paging is not None
    routes: list[tuple[str, Path]] = []
    page = sample_path(source)
    first = httpx.URL(f"http://127.0.0.1/{source.sample}")
    while named := json.loads(page.read_bytes()).get(source.paging.key):
        url = NextPage(source.paging.key, source.paging.token_param).url(first, named)
        page = SAMPLES_DIR / sample_for(url.path, query=url.query.decode()).lstrip("/")
        routes.append((url.raw_path.decode(), page))
    return routes


def serve_samples(server: LocalServer, sources: list[SourceSpec]) -> None:
    """Every source's sample (and a price list's offer files) on `server`, as the real hosts lay them out."""
    for source in sources:
        for route, file in sample_routes(source):
            server.serve_file(route, file, media_type_of(file))


def sample_answer(source: SourceSpec) -> bytes:
    """What a refresh hands the source's parser for its bundled sample: the sample's bytes, or for a paged answer
    the envelope of every sample page (as pipelines/fetch/pages.py keeps them)."""
    first = sample_path(source)
    if source.paging is None:
        return first.read_bytes()
    pages = [first, *(page for _, page in later_pages(source))]
    links = [None] + [json.loads(page.read_bytes())[source.paging.key] for page in pages[:-1]]
    return envelope(
        source.paging.key,
        [
            PageText(link, page.read_text(encoding="utf-8"), hashlib.sha256(page.read_bytes()).hexdigest())
            for link, page in zip(links, pages, strict=True)
        ],
    )
