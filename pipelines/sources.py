"""The sources file: which pages ratecard fetches, with which adapter, from which URL.

`ratecard refresh --sources FILE` swaps the whole file, so any source can be pointed at a mirror or a
local server by URL alone.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, field_validator

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_SOURCES_FILE = PACKAGE_DIR / "sources.toml"
SAMPLES_DIR = PACKAGE_DIR / "samples"


class SourceSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    adapter: str
    url: HttpUrl
    title: str = ""
    # Path of the bundled sample under pipelines/samples/, served by `--offline` and the tests.
    sample: str
    # False for pages that print specs but no price (Trn2, Trn3): a missing price column is then normal.
    expects_prices: bool = True
    options: dict[str, Any] = Field(default_factory=dict)
    # APIs that want a POST (RunPod's GraphQL): the body is sent as is, with this content type.
    method: Literal["GET", "POST"] = "GET"
    request_body: str | None = None
    request_content_type: str | None = None

    @field_validator("adapter")
    @classmethod
    def _known_adapter(cls, value: str) -> str:
        from pipelines.adapters import adapter_names  # late: adapters import this module

        if value not in adapter_names():
            raise ValueError(f"unknown adapter {value!r}; known: {adapter_names()}")
        return value

    @property
    def host(self) -> str:
        return self.url.host or ""


class SourcesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sources: list[SourceSpec]

    @field_validator("sources")
    @classmethod
    def _unique_ids(cls, sources: list[SourceSpec]) -> list[SourceSpec]:
        ids = [s.id for s in sources]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate source ids: {duplicates}")
        return sources


def load_sources(path: Path | str | None = None) -> list[SourceSpec]:
    path = Path(path) if path else DEFAULT_SOURCES_FILE
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    return SourcesFile.model_validate(data).sources


def sample_path(source: SourceSpec) -> Path:
    return SAMPLES_DIR / source.sample
