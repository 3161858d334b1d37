"""Dagster resources: typed configuration for the warehouse file, the fetcher and the sources file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import dagster as dg

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.fetch.offline import pointed_at
from pipelines.sources.file import FetchLimits, SourcesFile, load_sources_file
from pipelines.sources.locations import DEFAULT_SOURCES_FILE
from warehouse.files import DEFAULT_DB_PATH
from warehouse.target import local_dir


# Each resource is its own value (none overrides create_resource), hence ConfigurableResource["<the class>"].
class WarehouseResource(dg.ConfigurableResource["WarehouseResource"]):
    """The DuckDB file and the archive of fetched bodies beside it."""

    db_path: str = str(DEFAULT_DB_PATH)
    archive_dir: str = ""  # empty: an `archive/` folder next to the database file

    def archive(self) -> Archive:
        return Archive(self.archive_dir or local_dir(self.db_path) / "archive")


class FetcherResource(dg.ConfigurableResource["FetcherResource"]):
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 30.0
    max_attempts: int = 4
    backoff_initial_s: float = 0.5
    max_bytes: int = 10 * 1024 * 1024

    @contextmanager
    def fetcher(self, per_host_limit: int = 2, limits: FetchLimits | None = None) -> Iterator[Fetcher]:
        """A Fetcher for one step; `limits` (the sources file's [fetch]) bounds it in time, as a CLI refresh."""
        limits = limits or FetchLimits()
        settings = FetchSettings(
            per_host_limit=per_host_limit,
            trip_after_timeouts=limits.trip_after_timeouts,
            deadline_s=limits.deadline_s,
            connect_timeout_s=self.connect_timeout_s,
            read_timeout_s=self.read_timeout_s,
            max_attempts=self.max_attempts,
            backoff_initial_s=self.backoff_initial_s,
            max_bytes=self.max_bytes,
        )
        with Fetcher(settings) as fetcher:
            yield fetcher


class SourcesResource(dg.ConfigurableResource["SourcesResource"]):
    """Which file declares the sources; `offline_base_url` points every source at its bundled sample."""

    sources_file: str = str(DEFAULT_SOURCES_FILE)
    offline_base_url: str = ""

    def load(self) -> SourcesFile:
        """The file, its sources pointed at the samples when offline_base_url is set."""
        declared = load_sources_file(self.sources_file)
        if self.offline_base_url:
            declared.sources = pointed_at(declared.sources, self.offline_base_url)
        return declared
