"""Re-parse a source's archived bodies with today's parser and rebuild its history from them.

After a parser fix, `ratecard reparse --source ID` replays every fetch of that source that returned a body,
oldest first, through parse -> validate -> versioned landing, each at its original fetch time. The rebuild is
one transaction: SQL readers see the old history or the corrected one, never a half-rebuilt mix.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC
from pathlib import Path

from pipelines.adapters import parser_version
from pipelines.errors import ValidationFailed
from pipelines.fetch.archive import Archive
from pipelines.refresh.backfill import check_past_body
from pipelines.refresh.checking import check_body
from pipelines.refresh.kinds import KINDS
from pipelines.refresh.state import WarehouseState
from pipelines.sources.adapter_registry import adapter_kind, reads_files
from pipelines.sources.file import SourceSpec
from warehouse.db import connect
from warehouse.gpu_landing import GPU_LISTINGS
from warehouse.landing import INSERT_QUARANTINE, PRICES, SPECS, FetchRecord, land_in_transaction
from warehouse.pricelist_backfill import backfilled_fetches, version_snapshots
from warehouse.pricelist_landing import PRICELIST_OFFERS, PRICELIST_PRICES, PRICELIST_TYPES
from warehouse.queries import rows_as_dicts
from warehouse.spec_landing import SPEC_TABLES
from warehouse.transactions import transaction

# The versioned tables a kind's history lives in: rebuilt from scratch. FX rates are facts by date without
# a source_id: the rows this source's fetches appended are removed and replayed (REPLAYED_FX_RATES).
HISTORY_TABLES = {
    "aws": (PRICES.name, SPECS.name),
    "gpu": (GPU_LISTINGS.name,),
    "fx": (),
    "pricelist": (PRICELIST_PRICES.name, PRICELIST_TYPES.name, PRICELIST_OFFERS.name),
    "spec": SPEC_TABLES,
}

REPLAYABLE_FETCHES = """
SELECT fetch_id, source_id, url, final_url, status, fetched_at, sha256, bytes, elapsed_ms, attempts, content_type
FROM fetch_log
WHERE source_id = $source_id AND sha256 IS NOT NULL AND outcome <> 'fetch_failed'
ORDER BY fetched_at, fetch_id
"""

MARK_QUARANTINED = """
UPDATE fetch_log SET outcome = 'quarantined', rows_inserted = 0, rows_closed = 0,
                     parser_version = $parser_version, error = $error
WHERE fetch_id = $fetch_id
"""

REPLAYED_FX_RATES = (
    "DELETE FROM fx_rates WHERE fetch_id IN (SELECT fetch_id FROM fetch_log WHERE source_id = $source_id)"
)

FORGET_QUARANTINE = "DELETE FROM quarantine WHERE fetch_id = $fetch_id"


@dataclass
class ReparseResult:
    source_id: str
    fetches: int = 0
    landed: int = 0
    unchanged: int = 0
    quarantined: int = 0


def reparse_source(source: SourceSpec, *, db_path: Path | str, archive: Archive) -> ReparseResult:
    result = ReparseResult(source.id)
    version = parser_version(source.adapter)
    kind = KINDS[adapter_kind(source.adapter)]
    with connect(db_path) as con, transaction(con):
        # A backfilled offer version replays at its effective date, in date order among the daily fetches.
        effective = backfilled_fetches(con, source.id)
        fetches = rows_as_dicts(con, REPLAYABLE_FETCHES, {"source_id": source.id})
        fetches.sort(key=lambda row: effective.get(row["fetch_id"], row["fetched_at"]))
        for table in HISTORY_TABLES[kind.name]:
            con.execute(f"DELETE FROM {table} WHERE source_id = $source_id", {"source_id": source.id})
        if kind.name == "fx":  # else the replay finds every rate present and logs its first fetch as "unchanged"
            con.execute(REPLAYED_FX_RATES, {"source_id": source.id})
        for row in fetches:
            result.fetches += 1
            fetch = FetchRecord(**{k: v for k, v in row.items() if k != "fetch_id"})
            assert fetch.sha256 is not None  # REPLAYABLE_FETCHES selects archived fetches only
            # An offer file (~250 MB) is read from its archived file (zstd, or older gzip), never whole into memory.
            body = archive.verified_path(fetch.sha256) if reads_files(source.adapter) else archive.get(fetch.sha256)
            # The state as it was before this fetch: the history rebuilt so far, the FX rates known then, the
            # shape of the fetch before it. The fetch date is the UTC date, as when it was first landed.
            state = WarehouseState(con=con, before=(row["fetch_id"], fetch.fetched_at))
            con.execute(FORGET_QUARANTINE, {"fetch_id": row["fetch_id"]})  # the replay decides afresh
            on = fetch.fetched_at.astimezone(UTC).date()
            # The Content-Type logged with the fetch: its charset decodes the body exactly as the first parse did.
            at = effective.get(row["fetch_id"])
            if at is None:
                checked = check_body(source, body, on, state, fetch.content_type)
            else:
                checked = check_past_body(source, body, on, state, fetch.content_type)
            fetch = replace(fetch, shape_fingerprint=checked.shape, warnings=tuple(checked.warnings))
            error, stage = checked.error, checked.stage
            if error is None:
                snapshots = kind.snapshots(checked.batch) if at is None else version_snapshots(checked.batch)  # type: ignore[arg-type]
                landed = land_in_transaction(con, fetch, row["fetch_id"], version, snapshots, at)
                result.landed += landed.outcome == "landed"
                result.unchanged += landed.outcome == "unchanged"
                continue
            result.quarantined += 1
            reasons = error.failures if isinstance(error, ValidationFailed) else [str(error)]
            con.execute(
                MARK_QUARANTINED, {"parser_version": version, "error": "; ".join(reasons), "fetch_id": row["fetch_id"]}
            )
            con.execute(
                INSERT_QUARANTINE,
                {
                    "source_id": source.id,
                    "fetch_id": row["fetch_id"],
                    "url": fetch.url,
                    "fetched_at": fetch.fetched_at,
                    "sha256": fetch.sha256,
                    "parser_version": version,
                    "stage": stage,
                    "reasons": reasons,
                    "raw_body": body if isinstance(body, bytes) else b"",  # a file's body stays in the archive
                },
            )
    return result
