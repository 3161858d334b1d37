"""Index sources, refreshed unit by unit: read the index, skip what is already landed, refresh the rest.

A kind may declare sources that are an index of other files (`Kind.fan_out`: the price list's region index).
Before the refresh proper the index is fetched, and every unit it names becomes a SourceSpec of its own, which is
fetched, checked, quarantined or landed like any other source, so one broken unit never holds back the others. A
unit whose version stamp in the index equals the version already landed is not downloaded: its fetch_log row says
"unchanged" and carries no body.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb

from pipelines.adapters import parser_version
from pipelines.clock import utc_now
from pipelines.errors import FetchError, ParseError
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchResult
from pipelines.kind import FanOut
from pipelines.kinds import kind_named
from pipelines.refresh.one_source import (
    SourceOutcome,
    check_fetched,
    discard_body,
    fetch_record,
    fetch_source,
    land_checked,
    log_fetch_failure,
)
from pipelines.refresh.state import WarehouseState
from pipelines.sources.file import SourceSpec
from warehouse.db import connect
from warehouse.landing import FetchRecord, log_fetch, quarantine_batch
from warehouse.lock import exclusive_refresh


@dataclass
class IndexFetch:
    """An index source after its network half: the index, or why there is none."""

    source: SourceSpec
    started: datetime
    result: FetchResult | None = None
    error: FetchError | None = None


def fan_out_of(source: SourceSpec) -> FanOut | None:
    return kind_named(source.kind).fan_out


def reads_index(source: SourceSpec) -> bool:
    """An index source: replaced in a refresh by the units it names."""
    fan_out = fan_out_of(source)
    return fan_out is not None and fan_out.reads_index(source)


def lands_after_units(source: SourceSpec) -> bool:
    """A source (or unit) whose prices read what other index sources' units land: it lands after them."""
    fan_out = fan_out_of(source)
    return fan_out is not None and fan_out.lands_after_units(source)


def sample_units(source: SourceSpec) -> list[SourceSpec]:
    """What parses each bundled sample: the source itself, or for an index source one unit per unit its sample
    index names, each with its own sample file."""
    fan_out = fan_out_of(source)
    return fan_out.sample_units(source) if fan_out is not None and fan_out.reads_index(source) else [source]


def logged_units(con: duckdb.DuckDBPyConnection, source: SourceSpec) -> list[SourceSpec]:
    """The units of an index source that fetched a body (what `ratecard reparse` replays)."""
    fan_out = fan_out_of(source)
    return fan_out.logged_units(con, source) if fan_out is not None else []


def fetch_index(source: SourceSpec, fetcher: Fetcher) -> IndexFetch:
    """The network half: the index (small), never the files it names."""
    started = utc_now()
    try:
        return IndexFetch(source, started, result=fetch_source(source, fetcher, to_file=False))
    except FetchError as exc:
        return IndexFetch(source, started, error=exc)


def log_unchanged(con: duckdb.DuckDBPyConnection, unit: SourceSpec, version: str, at: datetime) -> SourceOutcome:
    note = f"[{unit.id}] version {version} is the one landed: not downloaded again"
    record = FetchRecord(unit.id, str(unit.url), at, warnings=(note,))
    fetch_id = log_fetch(con, record, outcome="unchanged", parser_version=parser_version(unit.adapter))
    return SourceOutcome(unit.id, "unchanged", str(unit.url), fetch_id=fetch_id, fetched_at=at, warnings=[note])


def quarantine_index(
    con: duckdb.DuckDBPyConnection, source: SourceSpec, result: FetchResult, error: ParseError
) -> SourceOutcome:
    fetch_id = quarantine_batch(
        con,
        fetch_record(source.id, result),
        result.body,
        stage="parse",
        reasons=[str(error)],
        parser_version=parser_version(source.adapter),
    )
    outcome = SourceOutcome(source.id, "quarantined", str(source.url), fetch_id, result.sha256, result.fetched_at)
    outcome.error = error
    return outcome


def plan_units(
    con: duckdb.DuckDBPyConnection, fetched: IndexFetch, archive: Archive
) -> tuple[list[SourceSpec], list[SourceOutcome]]:
    """The units to fetch, and the outcomes already known: the index's failure, or each unchanged unit."""
    source = fetched.source
    if fetched.error is not None:
        return [], [log_fetch_failure(con, source, fetched.error, fetched.started)]
    assert fetched.result is not None
    result = fetched.result
    archive.put(result.body)
    fan_out = fan_out_of(source)
    assert fan_out is not None  # only an index source is fetched as one
    try:
        units = fan_out.units(result.body, source, result.final_url)
    except ParseError as exc:
        return [], [quarantine_index(con, source, result, exc)]
    to_fetch, unchanged = [], []
    for unit, version in units:
        if fan_out.landed_version(con, unit) == version:
            unchanged.append(log_unchanged(con, unit, version, fetched.started))
        else:
            to_fetch.append(unit)
    return to_fetch, unchanged


def refresh_units(
    source: SourceSpec, *, fetcher: Fetcher, db_path: Path | str, archive: Archive, lock_wait_s: float
) -> list[SourceOutcome]:
    """One index source for a Dagster step: the index fetched unlocked, the unchanged units logged under the
    refresh lock, then each changed unit in turn (refresh_unit)."""
    fetched = fetch_index(source, fetcher)
    with exclusive_refresh(db_path, wait_s=lock_wait_s), connect(db_path) as con:
        units, outcomes = plan_units(con, fetched, archive)
    for unit in units:
        outcomes.append(refresh_unit(unit, fetcher=fetcher, db_path=db_path, archive=archive, lock_wait_s=lock_wait_s))
    return outcomes


def refresh_unit(
    source: SourceSpec, *, fetcher: Fetcher, db_path: Path | str, archive: Archive, lock_wait_s: float
) -> SourceOutcome:
    """One source (or unit): fetched outside any lock, then checked and landed under the refresh lock, so a step
    waiting on the network never holds up another step's landing; a body streamed to disk is removed after."""
    started = utc_now()
    try:
        result: FetchResult | FetchError = fetch_source(source, fetcher)
    except FetchError as exc:
        result = exc
    with exclusive_refresh(db_path, wait_s=lock_wait_s), connect(db_path) as con:
        if isinstance(result, FetchError):
            return log_fetch_failure(con, source, result, started)
        try:
            return land_checked(con, source, result, check_fetched(source, result, archive, WarehouseState(con=con)))
        finally:
            discard_body(result)
