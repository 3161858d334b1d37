"""One whole refresh of some sources into a test's own warehouse: a file and an archive under `folder`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.many_sources import refresh_all
from pipelines.refresh.one_source import SourceOutcome
from pipelines.sources.file import SourceSpec


def refreshed_in(
    folder: Path, sources: list[SourceSpec], max_sources: int = 16, **settings: Any
) -> list[SourceOutcome]:
    """The sources refreshed at once into `folder`/prices.duckdb, fetched with `settings` (FetchSettings' fields)."""
    with Fetcher(FetchSettings(**settings)) as fetcher:
        return refresh_all(
            sources,
            db_path=folder / "prices.duckdb",
            archive=Archive(folder / "archive"),
            fetcher=fetcher,
            max_sources=max_sources,
        )
