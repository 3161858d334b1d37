"""What a kind of source offers the generic refresh: how its parsed batch is finished, prepared, validated, compared
and landed. Each kind's folder makes one (`pipelines/<kind>/kind.py`, `KIND`); the registry (pipelines/kinds.py)
finds it by the name sources declare (`SourceSpec.kind`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    import duckdb

    from pipelines.sources.file import SourceSpec
    from schemas.gx_runner import ValidationReport
    from warehouse.landing import Snapshot

# A price's business key, as the drift rules name it: (item, price kind, region).
Key = tuple[str, str, str | None]

# Parts of a batch refused one by one while the rest lands (a spot row, a Lambda table): counted under this key,
# each named in a warning carrying REFUSED_MARK. A source with any is a partial failure (the refresh exits 1).
REFUSED = "refused"
REFUSED_MARK = "refused, not landed:"

T = TypeVar("T")


# A kind's own read of what is landed: (connection, the fetch time a reparse replays, else None for "now") -> value.
LandedRead = Callable[["duckdb.DuckDBPyConnection", "datetime | None"], T]


class LandedSoFar(Protocol):
    """What a kind's prepare and gates read of what is landed: WarehouseState runs the kind's own read on its
    connection, so the generic refresh names no kind's tables (the gate bench's samples stand in for it)."""

    def read(self, query: LandedRead[T]) -> T: ...


@dataclass(frozen=True)
class PreparedBatch:
    batch: Any
    warnings: list[str]
    counts: dict[str, int]


def as_read(read: Any, _source: SourceSpec, _adapter: ModuleType) -> Any:
    """Most adapters return their kind's whole batch."""
    return read


@dataclass(frozen=True)
class History:
    """Where a kind's landed rows live, as the drift rules and a reparse read them (SQL over the kind's tables)."""

    # Versioned by source_id: a reparse deletes the source's rows from these and replays its archived fetches.
    tables: tuple[str, ...] = ()
    # The source's open rows as (item, price kind, region, price), bound to $source_id (and $region_code where the
    # kind is scoped), for the price rule. None: nothing is versioned to compare (FX rates are facts by date).
    current_prices: str | None = None
    # How many open rows the row-drop rule compares with the batch's row_count (same parameters).
    current_rows: str | None = None
    # Facts not keyed by source (FX): the source's current rows, and what a reparse removes before replaying.
    facts_current: str | None = None
    facts_forget: str | None = None
    # The prices a fetch opened or closed ($source_id, $fetch_id, $observed_at), for the "what changed" table.
    changes: str | None = None


@dataclass(frozen=True)
class ViewCheck:
    """A Dagster asset check on a published view: `query` finds the rows that fail it, none means passed."""

    name: str
    description: str
    query: str
    label: str  # the metadata entry that lists the rows found
    warn_only: bool = True  # WARN: the view still publishes; else ERROR
    # One row of figures about the rows found (how many listings, the oldest date), each its own metadata entry.
    summary: str | None = None


@dataclass(frozen=True)
class ViewAsset:
    """A published view as a Dagster asset after its kind's sources land: it counts the view's rows and records a
    preview for the Dagster UI (the view itself is SQL, current the moment a source lands)."""

    key: str
    description: str
    count: str  # one row, one number: the view's rows
    preview: str
    preview_label: str = "preview"
    # The view assets it reads, by key: it follows them instead of the kind's sources (a view across kinds).
    after: tuple[str, ...] = ()
    checks: tuple[ViewCheck, ...] = ()


@dataclass(frozen=True)
class FanOut:
    """Sources that are an index of other files (the price list's region index). The refresh reads the index, then
    refreshes each unit it names as a source of its own, so one broken unit never holds back the others; a unit
    whose stamp is the version landed is logged "unchanged" without a download."""

    reads_index: Callable[[SourceSpec], bool]
    # The units of a fetched index (body, its source, the URL it came from), each with the version stamp the index
    # gives it ("" when none); raises ParseError naming the source.
    units: Callable[[bytes, SourceSpec, str], list[tuple[SourceSpec, str]]]
    landed_version: Callable[[duckdb.DuckDBPyConnection, SourceSpec], str | None]
    # The units the bundled sample index names, and those with an archived fetch (what a reparse replays).
    sample_units: Callable[[SourceSpec], list[SourceSpec]]
    logged_units: Callable[[duckdb.DuckDBPyConnection, SourceSpec], list[SourceSpec]]
    # A source (or unit) whose prices read what the other units land: it lands after them.
    lands_after_units: Callable[[SourceSpec], bool] = lambda _source: False


@dataclass(frozen=True)
class PastVersions:
    """Versions landed from their effective dates rather than their fetch times (the price list's backfill): a
    reparse replays each at its date, with the checks that do not compare it with today's (no drift rule, no gate)."""

    # fetch_id -> the date its rows begin, for the source's past-version fetches.
    effective: Callable[[duckdb.DuckDBPyConnection, str], dict[int, datetime]]
    snapshots: Callable[[Any], list[Snapshot]]


@dataclass(frozen=True)
class Kind:
    name: str
    prepare: Callable[[Any, SourceSpec, date, LandedSoFar], PreparedBatch]
    # Great Expectations on many batches of this kind at once, keyed by source id (one stacked run is far
    # cheaper than one run per source); each source's reports are the ones it would get alone.
    validate_many: Callable[[dict[str, tuple[SourceSpec, Any]]], dict[str, list[ValidationReport]]]
    snapshots: Callable[[Any], list[Snapshot]]
    # Prices by business key, as the drift rules compare them with the current version.
    prices: Callable[[Any], dict[Key, Decimal]]
    # Rows the batch would keep open, for the row-drop rule (AWS: specs and prices, so spec-only pages count).
    row_count: Callable[[Any], int]
    # What part of the source's current version the batch replaces (price list: its region), so the drift rules
    # compare a region with that region only. Empty: the whole source.
    scope: Callable[[Any], dict[str, Any]] = lambda _batch: {}
    # A batch read only in part, region by region (Azure's answer after a failed page): the regions it covers, to
    # which the drift rules and the landing keep to; the source's other regions keep their last good version.
    # None: the batch covers the whole source (or its scope).
    regions_read: Callable[[Any], Sequence[str] | None] = lambda _batch: None
    # Gates against what is already landed (price list: the publication date); raise ValidationFailed.
    gates: Callable[[Any, LandedSoFar], None] | None = None
    # The batch around what the adapter read, from the source and the adapter's module (GPU: the adapter reads
    # rows, and the batch names the provider and the parser version).
    batch_of: Callable[[Any, SourceSpec, ModuleType], Any] = as_read
    history: History = History()
    # Kinds whose landed rows this kind's prepare reads (GPU: the FX rates): their sources land first.
    reads_landed: tuple[str, ...] = ()
    # Dagster: the asset group of its sources, and the asset check each of its suites reports as (suite -> check).
    asset_group: str = ""
    checks: tuple[tuple[str, str], ...] = ()
    # Its published views as Dagster assets, each with its checks (the snapshot publishes after all of them).
    views: tuple[ViewAsset, ...] = ()
    # Index sources replaced by their units, and versions landed at their effective dates (price list).
    fan_out: FanOut | None = None
    past: PastVersions | None = None
