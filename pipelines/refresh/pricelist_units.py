"""A price-list source becomes one unit per region: read the region index, skip what is already landed.

The sources file names the EC2 region index (adapter aws_pricelist_region). Before the refresh proper, the index
is fetched and every region in it (or in the `regions` option) becomes a unit: a SourceSpec of its own
(id `<source>_<region with underscores>`, URL its offer file, option `region_code`), which is fetched, checked,
quarantined or landed like any other source, so one broken region never holds back the others. A region whose
version stamp in the index equals the offer version already landed is not downloaded: its fetch_log row says
"unchanged" and carries no body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import duckdb

from pipelines.adapters import parser_version
from pipelines.errors import FetchError, ParseError
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchResult
from pipelines.pricelist.landing import landed_publication
from pipelines.pricelist.records import REGION_CODE
from pipelines.pricelist.region_index import RegionOffer, changed_regions, parse_region_index
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
from pipelines.sources.file import SourceSpec, sample_path
from warehouse.binding import execute
from warehouse.db import connect
from warehouse.landing import FetchRecord, log_fetch, quarantine_batch
from warehouse.lock import exclusive_refresh

REGION_INDEX_ADAPTERS = frozenset({"aws_pricelist_region", "aws_savings_plan_region"})
# Feeds whose prices take their accelerator figures from the landed price-list types: they land after the EC2
# regions (the spot feed, and each region of the Savings Plans rates).
TYPE_ATTRIBUTE_ADAPTERS = frozenset({"aws_spot_feed", "aws_savings_plan_region"})


@dataclass
class IndexFetch:
    """A region-index source after its network half: the index, or why there is none."""

    source: SourceSpec
    started: datetime
    result: FetchResult | None = None
    error: FetchError | None = None


def reads_region_index(source: SourceSpec) -> bool:
    return source.adapter in REGION_INDEX_ADAPTERS and "region_code" not in source.options


def prices_with_type_attributes(source: SourceSpec) -> bool:
    """A feed whose prices take their accelerator figures from the landed price-list types (spot, Savings Plans)."""
    return source.adapter in TYPE_ATTRIBUTE_ADAPTERS


def unit_id(source_id: str, region_code: str) -> str:
    """us-east-1 -> <source>_us_east_1 (region codes hold no underscore, so the region can be read back)."""
    return f"{source_id}_{region_code.replace('-', '_')}"


def region_unit(source: SourceSpec, offer: RegionOffer) -> SourceSpec:
    data = source.model_dump()
    data |= {
        "id": unit_id(source.id, offer.region_code),
        "url": offer.csv_url,
        "title": f"{source.title} ({offer.region_code})",
        "sample": str(PurePosixPath(source.sample).parent / f"{offer.region_code}.csv"),  # the region's sample
        # The stamp the index names, which the file must print (a replay from the archive names none).
        "options": {**source.options, "region_code": offer.region_code}
        | ({"index_version": offer.version} if offer.version else {}),
    }
    return SourceSpec.model_validate(data)


def fetch_index(source: SourceSpec, fetcher: Fetcher) -> IndexFetch:
    """The network half: the region index (small), never the offer files."""
    started = datetime.now(UTC)
    try:
        return IndexFetch(source, started, result=fetch_source(source, fetcher, to_file=False))
    except FetchError as exc:
        return IndexFetch(source, started, error=exc)


def landed_versions(con: duckdb.DuckDBPyConnection, units: list[tuple[SourceSpec, RegionOffer]]) -> dict[str, str]:
    """Region code -> the offer version landed last for its unit."""
    versions = {}
    for unit, offer in units:
        landed = landed_publication(con, unit.id, offer.region_code)
        if landed is not None and landed[1] is not None:
            versions[offer.region_code] = landed[1]
    return versions


def log_unchanged(con: duckdb.DuckDBPyConnection, unit: SourceSpec, version: str, at: datetime) -> SourceOutcome:
    note = f"[{unit.id}] offer version {version} is the one landed: not downloaded again"
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
    """The units to fetch, and the outcomes already known: the index's failure, or each unchanged region."""
    source = fetched.source
    if fetched.error is not None:
        return [], [log_fetch_failure(con, source, fetched.error, fetched.started)]
    assert fetched.result is not None
    result = fetched.result
    archive.put(result.body)
    try:
        only = source.options.get("regions")
        index = parse_region_index(result.body, source.id, result.final_url, only=only)
    except ParseError as exc:
        return [], [quarantine_index(con, source, result, exc)]
    units = [(region_unit(source, offer), offer) for offer in index.regions]
    changed = {offer.region_code for offer in changed_regions(index, landed_versions(con, units))}
    to_fetch = [unit for unit, offer in units if offer.region_code in changed]
    unchanged = [
        log_unchanged(con, unit, offer.version, fetched.started)
        for unit, offer in units
        if offer.region_code not in changed
    ]
    return to_fetch, unchanged


def refresh_regions(
    source: SourceSpec, *, fetcher: Fetcher, db_path: Path | str, archive: Archive, lock_wait_s: float
) -> list[SourceOutcome]:
    """One price-list source for a Dagster step: the index fetched unlocked, the unchanged regions logged under
    the refresh lock, then each changed region in turn (refresh_unit)."""
    fetched = fetch_index(source, fetcher)
    with exclusive_refresh(db_path, wait_s=lock_wait_s), connect(db_path) as con:
        units, outcomes = plan_units(con, fetched, archive)
    for unit in units:
        outcomes.append(refresh_unit(unit, fetcher=fetcher, db_path=db_path, archive=archive, lock_wait_s=lock_wait_s))
    return outcomes


def refresh_unit(
    source: SourceSpec, *, fetcher: Fetcher, db_path: Path | str, archive: Archive, lock_wait_s: float
) -> SourceOutcome:
    """One source (or region): fetched outside any lock, then checked and landed under the refresh lock, so a step
    waiting on the network never holds up another step's landing; a body streamed to disk is removed after."""
    started = datetime.now(UTC)
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


def sample_units(source: SourceSpec) -> list[SourceSpec]:
    """What parses each bundled sample: the source itself, or for a region index one unit per sample region
    (the regions its sample index names), each with its region's sample file."""
    if not reads_region_index(source):
        return [source]
    index = parse_region_index(sample_path(source).read_bytes(), source.id, "http://127.0.0.1/")
    return [region_unit(source, offer) for offer in index.regions]


# Every unit of a source that has a fetch in the log: `<source id>_<region with underscores>`.
LOGGED_UNITS = """
SELECT source_id, arg_max(url, fetch_id) AS url FROM fetch_log
WHERE starts_with(source_id, $prefix) AND sha256 IS NOT NULL
GROUP BY source_id ORDER BY source_id
"""


def logged_units(con: duckdb.DuckDBPyConnection, source: SourceSpec) -> list[SourceSpec]:
    """The region units of a price-list source that fetched a body (what `ratecard reparse` replays)."""
    units = []
    for unit, url in execute(con, LOGGED_UNITS, {"prefix": f"{source.id}_"}).fetchall():
        region = unit.removeprefix(f"{source.id}_").replace("_", "-")
        if re.fullmatch(REGION_CODE, region):
            units.append(region_unit(source, RegionOffer(region, url, "")))
    return units
