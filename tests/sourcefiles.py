"""Sources files for tests: the declared sources pointed at a local server, and the media type each sample is
served with."""

from __future__ import annotations

import json
from pathlib import Path

from localserver import LocalServer
from pipelines.fetch.offline import pointed_at
from pipelines.refresh.pricelist_units import reads_region_index
from pipelines.sources.file import SourceSpec, sample_path
from pipelines.sources.toml_writer import sources_toml


def write_sources_file(path: Path, sources: list[SourceSpec], base_url: str) -> Path:
    """A sources file declaring the same sources, each at `base_url/<sample path>`."""
    path.write_text(sources_toml(pointed_at(sources, base_url)))
    return path


MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".xml": "text/xml",
    ".csv": "text/csv",
}


def media_type_of(path: Path) -> str:
    return MEDIA_TYPES[path.suffix]


def sample_routes(source: SourceSpec) -> list[tuple[str, Path]]:
    """(URL path, sample file) a local server answers for a source: its sample at /<sample path>, and for a
    price-list region index also each region's offer file at the path the index names (AWS's layout)."""
    routes = [(f"/{source.sample}", sample_path(source))]
    if reads_region_index(source):
        index = json.loads(sample_path(source).read_text())
        for code, entry in index["regions"].items():
            offer = entry["currentVersionUrl"].removesuffix(".json") + ".csv"
            routes.append((offer, sample_path(source).parent / f"{code}.csv"))
    return routes


def serve_samples(server: LocalServer, sources: list[SourceSpec]) -> None:
    """Every source's sample (and a price list's offer files) on `server`, as the real hosts lay them out."""
    for source in sources:
        for route, file in sample_routes(source):
            server.serve_file(route, file, media_type_of(file))
