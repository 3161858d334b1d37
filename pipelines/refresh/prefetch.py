"""The network half of a refresh on its own: every source fetched before the warehouse is touched.

A Dagster step fetches this way so that it does not hold the writer while it waits on the network; the bodies (or
their FetchErrors) then go to refresh_all as `fetched`, and those sources are not fetched again.
"""

from __future__ import annotations

import threading

from pipelines.errors import FetchError
from pipelines.fetch.http import Fetcher, FetchResult
from pipelines.refresh.one_source import fetch_source
from pipelines.refresh.threads import RefreshStopped, StopRequested, result_of, start_workers
from pipelines.sources.file import SourceSpec

Fetched = dict[str, FetchResult | FetchError]  # source id -> what its fetch brought


def fetch_all(sources: list[SourceSpec], fetcher: Fetcher, max_sources: int) -> Fetched:
    """Only the network half, `max_sources` at a time, touching no file: for a caller that must not hold the
    writer while it waits on the network (a Dagster step). Raises RefreshStopped if interrupted."""

    def fetch(source: SourceSpec) -> FetchResult | FetchError:
        try:
            return fetch_source(source, fetcher)
        except FetchError as exc:
            return exc

    stopping = threading.Event()
    try:  # a stop may come while the workers start, the first ones already fetching
        futures = start_workers(fetch, sources, max_sources, stopping)
        return {source.id: result_of(future) for source, future in zip(sources, futures, strict=True)}
    except (KeyboardInterrupt, StopRequested) as exc:
        stopping.set()
        raise RefreshStopped([], exc) from exc


def fetch_or_take(fetcher: Fetcher, fetched: Fetched, source: SourceSpec) -> FetchResult:
    """The body fetched earlier for `source` (re-raising its FetchError), else a fetch now."""
    done = fetched.get(source.id)
    if isinstance(done, FetchError):
        raise done
    return done if done is not None else fetch_source(source, fetcher)
