"""`ratecard backfill pricelist`: the EC2 offer's past versions, landed as history from their effective dates.

AWS keeps every monthly version of the EC2 offer downloadable. The version index names each one with the dates
it was in effect; each version has its own region index, in the shape of the current one. For each version in
date order and each region (all, or those asked for), the regional offer file is fetched, archived, parsed and
validated like a daily refresh's, then woven into the region's history at the version's effective date
(warehouse.past_snapshots), so the history starts at the first version, not on the day ratecard was installed.

- Resumable and idempotent: each version landed is recorded per region unit (aws_pricelist_backfill) in the same
  transaction as its rows; a later run skips it, so a second run adds no row and a stopped one carries on.
- One bad file is quarantined, named, and skipped; the other versions and regions still land, and a later run
  tries it again (a version landed out of order still goes in its place).
- The drift rules and the publication-date gate are not applied: they compare a file with the version landed
  before it in fetch order, and a past version is by design older than the one landed today.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

from pipelines.adapters import parser_version
from pipelines.errors import FetchError, ParseError, SourceError, ValidationFailed
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchResult
from pipelines.pricelist.backfill_landing import VersionDates, backfilled_versions, land_version
from pipelines.pricelist.records import PriceListBatch
from pipelines.pricelist.region_index import RegionIndex, parse_region_index
from pipelines.pricelist.region_units import reads_region_index, region_unit
from pipelines.pricelist.version_index import (
    VERSION_INDEX_PATH,
    OfferVersion,
    parse_version_index,
    version_index_url,
)
from pipelines.refresh.checking import Checked, check_past
from pipelines.refresh.one_source import (
    SourceOutcome,
    discard_body,
    fetch_record,
    fetch_source,
    log_fetch_failure,
    prepare_fetched,
)
from pipelines.refresh.state import WarehouseState
from pipelines.sources.file import SourceSpec
from warehouse.db import connect
from warehouse.landing import quarantine_batch
from warehouse.lock import exclusive_refresh

ALREADY = "already backfilled"
EC2_INDEX_ADAPTER = "aws_pricelist_region"  # the EC2 offer has the version index; the Savings Plans one is not read


def ec2_region_indexes(sources: list[SourceSpec]) -> list[SourceSpec]:
    """The declared EC2 price-list region indexes: what a backfill reads the past versions of."""
    return [s for s in sources if s.adapter == EC2_INDEX_ADAPTER and reads_region_index(s)]


@dataclass
class VersionOutcome:
    """One region of one version: landed, skipped (already backfilled), quarantined or fetch_failed."""

    version: str
    region_code: str
    outcome: SourceOutcome


@dataclass
class BackfillReport:
    source_id: str
    versions: list[OfferVersion] = field(default_factory=list)
    units: list[VersionOutcome] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)  # a version index or region index that failed

    @property
    def inserted(self) -> int:
        return sum(u.outcome.inserted for u in self.units)

    @property
    def failed(self) -> list[VersionOutcome]:
        return [u for u in self.units if u.outcome.error is not None]


def at_url(source: SourceSpec, url: str) -> SourceSpec:
    """The same source (host, headers, size cap) asked for another of its files."""
    return SourceSpec.model_validate(source.model_dump() | {"url": url})


def fetch_json(source: SourceSpec, url: str, fetcher: Fetcher, archive: Archive) -> FetchResult:
    """A small index file, archived like any fetched body."""
    result = fetch_source(at_url(source, url), fetcher, to_file=False)
    archive.put(result.body)
    return result


def read_versions(source: SourceSpec, fetcher: Fetcher, archive: Archive, since: date | None) -> list[OfferVersion]:
    """The versions to land, oldest first; raises FetchError or ParseError naming the source."""
    url = version_index_url(str(source.url), source.options.get("version_index", VERSION_INDEX_PATH))
    result = fetch_json(source, url, fetcher, archive)
    return parse_version_index(result.body, source.id, result.final_url, since=since)


def read_regions(
    source: SourceSpec, version: OfferVersion, fetcher: Fetcher, archive: Archive, regions: Collection[str] | None
) -> RegionIndex:
    """The version's regions (those asked for that it has: a region may not exist yet in an old version)."""
    result = fetch_json(source, version.region_index_url, fetcher, archive)
    index = parse_region_index(result.body, f"{source.id}@{version.version}", result.final_url)
    if regions is None:
        return index
    return RegionIndex(index.publication_date, [r for r in index.regions if r.region_code in regions], index.skipped)


def check_version(unit: SourceSpec, result: FetchResult, archive: Archive, db_path: Path | str) -> Checked:
    """Archive, parse, prepare and validate one regional file (pydantic and Great Expectations, as a refresh); no
    drift rule or gate (see the module's docstring)."""
    return check_past(unit, prepare_fetched(unit, result, archive, WarehouseState(db_path)))


def land_or_quarantine(
    db_path: Path | str, unit: SourceSpec, result: FetchResult, checked: Checked, dates: VersionDates
) -> SourceOutcome:
    """The writing half, under the caller's lock: the version lands, or its body is quarantined with reasons."""
    outcome = SourceOutcome(unit.id, "quarantined", str(unit.url), sha256=result.sha256, fetched_at=result.fetched_at)
    outcome.counts, outcome.warnings, outcome.reports = checked.counts, checked.warnings, checked.reports
    version = parser_version(unit.adapter)
    fetch = fetch_record(unit.id, result)
    with connect(db_path) as con:
        if checked.error is not None:
            error = checked.error
            reasons = error.failures if isinstance(error, ValidationFailed) else [str(error)]
            outcome.fetch_id = quarantine_batch(
                con, fetch, result.body, stage=checked.stage, reasons=reasons, parser_version=version
            )
            outcome.error = error
            return outcome
        assert isinstance(checked.batch, PriceListBatch)  # a region unit's parser makes nothing else
        landed = land_version(con, fetch, version, checked.batch, dates)
    outcome.status, outcome.fetch_id = landed.outcome, landed.fetch_id
    outcome.inserted, outcome.closed, outcome.unchanged = landed.inserted, landed.closed, landed.unchanged
    return outcome


def backfill_unit(
    unit: SourceSpec,
    dates: VersionDates,
    *,
    fetcher: Fetcher,
    db_path: Path | str,
    archive: Archive,
    lock_wait_s: float,
) -> SourceOutcome:
    """One region of one version: skipped if landed before, else fetched unlocked, then landed under the lock."""
    with connect(db_path) as con:
        if dates.version in backfilled_versions(con, unit.id):
            return SourceOutcome(unit.id, "unchanged", str(unit.url), warnings=[ALREADY])
    started = datetime.now(UTC)
    try:
        result = fetch_source(unit, fetcher)
    except FetchError as exc:
        with exclusive_refresh(db_path, wait_s=lock_wait_s), connect(db_path) as con:
            return log_fetch_failure(con, unit, exc, started)
    try:
        checked = check_version(unit, result, archive, db_path)
        with exclusive_refresh(db_path, wait_s=lock_wait_s):
            return land_or_quarantine(db_path, unit, result, checked, dates)
    finally:
        discard_body(result)


def backfill_pricelist(
    source: SourceSpec,
    *,
    fetcher: Fetcher,
    db_path: Path | str,
    archive: Archive,
    since: date | None = None,
    regions: Collection[str] | None = None,
    lock_wait_s: float = 60.0,
    on_unit: Callable[[VersionOutcome], None] | None = None,
) -> BackfillReport:
    """Every version in effect on or after `since`, oldest first, each region in turn. A version index that cannot
    be read raises (nothing can be done without it); a version's region index that cannot is reported and the
    next version goes on."""
    report = BackfillReport(source.id, read_versions(source, fetcher, archive, since))
    for version in report.versions:
        try:
            index = read_regions(source, version, fetcher, archive, regions)
        except (FetchError, ParseError) as exc:
            report.errors.append(exc)
            continue
        dates = VersionDates(version.version, version.effective_from, version.effective_to)
        for offer in index.regions:
            unit = region_unit(source, offer)
            outcome = backfill_unit(
                unit, dates, fetcher=fetcher, db_path=db_path, archive=archive, lock_wait_s=lock_wait_s
            )
            done = VersionOutcome(version.version, offer.region_code, outcome)
            report.units.append(done)
            if on_unit is not None:
                on_unit(done)
    return report
