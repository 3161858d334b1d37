"""Sources (and capture sets) written back as TOML: for benches and tests that declare sources of their own."""

from __future__ import annotations

import json

from pipelines.sources.captures import CaptureSet
from pipelines.sources.file import Concurrency, SourceSpec


def toml_value(value: object) -> str:
    if isinstance(value, dict):  # TOML has no null: an unset field is left out
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items() if v is not None) + " }"
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


def captures_toml(sets: list[CaptureSet]) -> str:
    """A captures file declaring `sets` as they are (URLs included)."""
    blocks = []
    for capture_set in sets:
        fields = capture_set.model_dump(mode="json", exclude={"captures"})
        lines = [f"{k} = {toml_value(v)}" for k, v in fields.items()]
        captures = [
            f"  {{ id = {toml_value(c.id)}, url = {toml_value(str(c.url))}, "
            f"captured_at = {c.captured_at.isoformat()} }},"
            for c in capture_set.captures
        ]
        blocks.append("[[capture_sets]]\n" + "\n".join(lines) + "\ncaptures = [\n" + "\n".join(captures) + "\n]")
    return "\n\n".join(blocks) + "\n"
