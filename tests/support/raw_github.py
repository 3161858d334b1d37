"""Real files served on 127.0.0.1 where GitHub's raw host serves them (text/plain), each landed through the real
refresh of its declared source: what the recorded-capture tests of AWS Neuron's repository share."""

from __future__ import annotations

from pathlib import Path

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
            path = "/" + str(declared[source_id].url).split("://", 1)[1].split("/", 1)[1]
            server.set(path, Reply(body=(folder / recording).read_bytes(), content_type="text/plain; charset=utf-8"))
            source = SourceSpec.model_validate(declared[source_id].model_dump() | {"url": server.url(path)})
            outcomes[source_id] = refresh_source(source, fetcher=fetcher, db_path=db, archive=Archive(root / "a"))
    return db, outcomes
