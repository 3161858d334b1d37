"""Shared fixtures: a local HTTP site serving the samples, a sources file pointing at it, a temp warehouse."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

# Libraries that print progress bars or phone home stay quiet; runs use an in-memory Dagster instance.
os.environ.setdefault("TQDM_DISABLE", "1")
os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
os.environ.pop("DAGSTER_HOME", None)

from localserver import LocalServer
from pipelines.sources import SourceSpec, load_sources, sample_path


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


@pytest.fixture
def sources() -> list[SourceSpec]:
    return load_sources()


@pytest.fixture
def site(sources):
    """A LocalServer serving every bundled sample at its sample path."""
    with LocalServer() as server:
        for source in sources:
            server.serve_file(f"/{source.sample}", sample_path(source), media_type_of(sample_path(source)))
        yield server


@pytest.fixture
def sources_file(tmp_path, sources, site) -> Path:
    return write_sources_file(tmp_path / "sources.toml", sources, site.base_url)


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "warehouse" / "prices.duckdb"
