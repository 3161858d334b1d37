"""Sources written back as a sources file (TOML): for benches and tests that declare sources of their own."""

from __future__ import annotations

import json

from pipelines.sources.file import Concurrency, SourceSpec


def toml_value(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)  # JSON strings, numbers and booleans are valid TOML


def sources_toml(sources: list[SourceSpec], concurrency: Concurrency | None = None) -> str:
    """A sources file declaring `sources` as they are (URLs included) and, if given, the concurrency limits."""
    blocks = []
    if concurrency is not None:
        blocks.append("[concurrency]\n" + "\n".join(f"{k} = {v}" for k, v in concurrency.model_dump().items()))
    for source in sources:
        fields = source.model_dump(mode="json")
        lines = [f"{k} = {toml_value(v)}" for k, v in fields.items() if v is not None]  # TOML has no null
        blocks.append("[[sources]]\n" + "\n".join(lines))
    return "\n\n".join(blocks) + "\n"
