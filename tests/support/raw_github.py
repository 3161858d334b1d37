"""Real files served on 127.0.0.1 where GitHub's raw host serves them (text/plain), each landed through the real
refresh of its declared source: what the recorded-capture tests of AWS Neuron's repository share."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.one_source import SourceOutcome, refresh_source
from pipelines.sources.file import SourceSpec, load_sources
from tests.support.localserver import LocalServer, Reply


def land_raw_files(root: Path, folder: Path, recordings: dict[str, str]) -> tuple[Path, dict[str, SourceOutcome]]:
    """Each source id's recording (a file in `folder`) served at its URL's path and refreshed into
    `root`/prices.duckdb, in order."""
    declared = {s.id: s for s in load_sources()}
    db = root / "prices.duckdb"
    outcomes = {}
    with LocalServer() as server, Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        for source_id, recording in recordings.items():
            reply = Reply(body=(folder / recording).read_bytes(), content_type="text/plain; charset=utf-8")
            source = served_at_its_path(server, declared[source_id], reply)
            outcomes[source_id] = refresh_source(source, fetcher=fetcher, db_path=db, archive=Archive(root / "a"))
    return db, outcomes


def served_at_its_path(server: LocalServer, source: SourceSpec, reply: Reply | None) -> SourceSpec:
    """The source pointed at `server`, which answers `reply` at the path the source's real host serves it (no reply:
    the server does not have the page)."""
    path = urlsplit(str(source.url)).path  # the local server answers by path
    if reply is not None:
        server.set(path, reply)
    return SourceSpec.model_validate(source.model_dump() | {"url": server.url(path)})
