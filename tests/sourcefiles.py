"""Sources files for tests: the declared sources pointed at a local server, and the media type each sample is
served with."""

from __future__ import annotations

from pathlib import Path

from pipelines.offline import pointed_at
from pipelines.sources import SourceSpec
from pipelines.sources_toml import sources_toml


def write_sources_file(path: Path, sources: list[SourceSpec], base_url: str) -> Path:
    """A sources file declaring the same sources, each at `base_url/<sample path>`."""
    path.write_text(sources_toml(pointed_at(sources, base_url)))
    return path


MEDIA_TYPES = {".html": "text/html; charset=utf-8", ".json": "application/json", ".xml": "text/xml"}


def media_type_of(path: Path) -> str:
    return MEDIA_TYPES[path.suffix]
