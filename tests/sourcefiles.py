"""Sources files for tests: the declared sources pointed at a local server, and the media type each sample is
served with."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines.sources import SourceSpec


def toml_value(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)  # JSON strings, numbers and booleans are valid TOML


def write_sources_file(path: Path, sources: list[SourceSpec], base_url: str) -> Path:
    """A sources file declaring the same sources, each at `base_url/<sample path>`."""
    blocks = []
    for source in sources:
        fields = source.model_dump(mode="json")
        fields["url"] = f"{base_url}/{source.sample}"
        lines = [f"{k} = {toml_value(v)}" for k, v in fields.items() if v is not None]  # TOML has no null
        blocks.append("[[sources]]\n" + "\n".join(lines))
    path.write_text("\n\n".join(blocks) + "\n")
    return path


MEDIA_TYPES = {".html": "text/html; charset=utf-8", ".json": "application/json", ".xml": "text/xml"}


def media_type_of(path: Path) -> str:
    return MEDIA_TYPES[path.suffix]
