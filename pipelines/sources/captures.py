"""Dated captures of a source's page made by others (a repository's versions of a scraped file, a web archive's
copies), declared in `pipelines/captures.toml`: what `ratecard backfill captures` lands into the source's history at
each capture's own date.

A capture set names the source whose history it joins and the reader (an adapter) for the captures' shape, which may
differ from the source's own page (a scraper's JSON of the page). Each capture has an id (where it came from, as its
origin names it), the URL it is fetched from, and the time it was captured, the page's fetch time.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, HttpUrl, ValidationError, field_validator

from pipelines.errors import model_problems
from pipelines.sources.adapter_registry import ADAPTERS
from pipelines.sources.file import SourceSpec
from pipelines.sources.locations import DEFAULT_CAPTURES_FILE


class CapturesFileError(ValueError):
    """The captures file cannot be used: which file, and what is wrong."""


class Capture(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)  # e.g. "koyakimu/ec2-capacity-blocks-for-ml-pricing-json@45e3e84d:data/pricing.json"
    url: HttpUrl
    captured_at: AwareDatetime


class CaptureSet(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    source: str  # the source whose history the captures join
    reader: str  # the adapter that reads the captures' shape
    origin: str = Field(min_length=1)  # who made the captures, where they are kept
    licence: str = Field(min_length=1)
    captures: list[Capture] = Field(min_length=1)

    @field_validator("reader")
    @classmethod
    def _known_reader(cls, value: str) -> str:
        if value not in ADAPTERS:
            raise ValueError(f"unknown reader {value!r}; known: {sorted(ADAPTERS)}")
        return value

    def reader_spec(self, source: SourceSpec, capture: Capture) -> SourceSpec:
        """The source as one capture is read: the capture's URL, through the set's reader."""
        if ADAPTERS[self.reader].kind != source.kind:
            raise CapturesFileError(
                f"capture set {self.id}: reader {self.reader} gives {ADAPTERS[self.reader].kind} rows, "
                f"but source {source.id} is of kind {source.kind}"
            )
        # The source's options (its provider's name) go with it; a reader with options of its own is checked by them.
        return SourceSpec.model_validate(source.model_dump() | {"adapter": self.reader, "url": str(capture.url)})


def load_captures(path: Path | str | None = None) -> list[CaptureSet]:
    """The declared capture sets; a CapturesFileError naming the file and the problem."""
    path = Path(path) if path else DEFAULT_CAPTURES_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CapturesFileError(f"{path}: {exc}") from exc
    sets = []
    for index, entry in enumerate(data.get("capture_sets", [])):
        try:
            sets.append(CaptureSet.model_validate(entry))
        except ValidationError as exc:
            name = entry.get("id", f"#{index + 1}") if isinstance(entry, dict) else f"#{index + 1}"
            problems = model_problems(exc)
            raise CapturesFileError(f"{path}: capture set {name}: {problems}") from None
    ids = [s.id for s in sets]
    if len(ids) != len(set(ids)):
        raise CapturesFileError(f"{path}: capture set ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
    return sets


def in_date_order(sets: list[CaptureSet]) -> list[tuple[CaptureSet, Capture]]:
    """Every capture of the sets, oldest first (ties by id): the order they are woven in."""
    pairs = [(s, c) for s in sets for c in s.captures]
    return sorted(pairs, key=lambda pair: (pair[1].captured_at, pair[1].id))
