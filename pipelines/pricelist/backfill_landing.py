"""Landing a past EC2 offer version: its prices and types woven into the history at the version's effective date.

The version's fetch is logged like any other (its body archived by SHA-256); its rows start at the date the
version index says it took effect, so "the price on a date" reads the version in force then. The offer itself
goes to aws_pricelist_backfill, never to aws_pricelist_offers: that table says which file a daily refresh landed
last, and a past version must not look newer to its publication-date gate or to the unchanged-region skip.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import duckdb

from pipelines.pricelist.landing import PRICELIST_OFFERS, pricelist_snapshots
from pipelines.pricelist.records import PriceListBatch
from warehouse.binding import execute
from warehouse.landing import FetchRecord, LandResult, Snapshot, land_in_transaction, log_fetch
from warehouse.transactions import in_transaction

BACKFILLED = "SELECT DISTINCT offer_version FROM aws_pricelist_backfill WHERE source_id = $source_id"

INSERT_BACKFILLED = """
INSERT INTO aws_pricelist_backfill (source_id, region_code, offer_version, effective_from, effective_to,
                                    publication_date, price_rows, fetch_id, source_url, fetched_at, sha256,
                                    parser_version)
VALUES ($source_id, $region_code, $offer_version, $effective_from, $effective_to, $publication_date, $price_rows,
        $fetch_id, $source_url, $fetched_at, $sha256, $parser_version)
"""

# The first landing of the unit after $at: another backfilled version's effective date, or a daily fetch that
# landed or confirmed (unchanged) the region after this version was published. A version woven in at $at holds until
# then at the latest. AWS publishes a version days after the date it takes effect (20250912225308 took effect on
# 2025-09-01): a daily fetch in between still saw the version before, and must not cut this one short.
NEXT_OBSERVED = """
SELECT least(
    (SELECT min(effective_from) FROM aws_pricelist_backfill WHERE source_id = $source_id AND effective_from > $at),
    (SELECT min(fetched_at) FROM fetch_log
     WHERE source_id = $source_id AND outcome IN ('landed', 'unchanged')
       AND fetched_at > greatest($at, coalesce($published, $at))
       AND fetch_id NOT IN (SELECT fetch_id FROM aws_pricelist_backfill)))
"""

# When each backfilled fetch's rows begin: what a reparse replays them at.
BACKFILLED_FETCHES = "SELECT fetch_id, effective_from FROM aws_pricelist_backfill WHERE source_id = $source_id"


@dataclass(frozen=True)
class VersionDates:
    version: str
    effective_from: datetime
    effective_to: datetime | None


def backfilled_versions(con: duckdb.DuckDBPyConnection, source_id: str) -> set[str]:
    """The offer versions already backfilled for a region unit."""
    return {row[0] for row in execute(con, BACKFILLED, {"source_id": source_id}).fetchall()}


def backfilled_fetches(con: duckdb.DuckDBPyConnection, source_id: str) -> dict[int, datetime]:
    """fetch_id -> effective date, for the unit's backfilled fetches."""
    return dict(execute(con, BACKFILLED_FETCHES, {"source_id": source_id}).fetchall())


def version_snapshots(batch: PriceListBatch) -> list[Snapshot]:
    """The prices and types of a version; not the offer row (see the module's docstring)."""
    return [s for s in pricelist_snapshots(batch) if s.table is not PRICELIST_OFFERS]


def land_version(
    con: duckdb.DuckDBPyConnection,
    fetch: FetchRecord,
    parser_version: str,
    batch: PriceListBatch,
    dates: VersionDates,
) -> LandResult:
    """One version of one region, with its fetch-log and backfill rows, in a single transaction."""

    def work() -> LandResult:
        params = {"source_id": fetch.source_id, "at": dates.effective_from, "published": batch.publication_date}
        ((next_observed,),) = execute(con, NEXT_OBSERVED, params).fetchall()
        fetch_id = log_fetch(con, fetch, outcome="landed", parser_version=parser_version)
        snapshots = version_snapshots(batch)
        landed = land_in_transaction(
            con, fetch, fetch_id, parser_version, snapshots, dates.effective_from, next_observed
        )
        execute(
            con,
            INSERT_BACKFILLED,
            {
                "source_id": fetch.source_id,
                "region_code": batch.region_code,
                "offer_version": dates.version,
                "effective_from": dates.effective_from,
                "effective_to": dates.effective_to,
                "publication_date": batch.publication_date,
                "price_rows": len(batch.prices),
                "fetch_id": fetch_id,
                "source_url": fetch.url,
                "fetched_at": fetch.fetched_at,
                "sha256": fetch.sha256 or "",
                "parser_version": parser_version,
            },
        )
        return landed

    return in_transaction(con, work)
