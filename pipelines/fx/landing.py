"""The ECB rates table (kind `fx`): facts by currency and date, and the rates known at a time."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pyarrow as pa

from pipelines.fx.records import FxBatch, FxRate
from warehouse.binding import execute
from warehouse.landing import MONEY, Snapshot
from warehouse.versioning import FactTable

# An ECB correction of a landed rate closes the old row and adds the new one (FactTable).
FX_RATES = FactTable(
    name="fx_rates",
    key_columns=("currency", "rate_date"),
    fields=(pa.field("currency", pa.string()), pa.field("rate_date", pa.date32()), pa.field("units_per_eur", MONEY)),
)


# Rates known at `as_of`: a replayed fetch converts with the rates it could have seen (a correction fetched
# later is not yet visible, the value it replaced still is); without as_of, the current ones.
FX_RATES_KNOWN_AT = """
SELECT currency, rate_date, units_per_eur FROM fx_rates
WHERE fetched_at <= $as_of AND (valid_to IS NULL OR valid_to > $as_of)
ORDER BY rate_date, currency
"""


def fx_snapshots(batch: FxBatch) -> list[Snapshot]:
    return [Snapshot(FX_RATES, [r.model_dump(mode="python") for r in batch.rates])]


def load_fx_rates(con: duckdb.DuckDBPyConnection, as_of: datetime | None = None) -> list[FxRate]:
    rows = execute(con, FX_RATES_KNOWN_AT, {"as_of": as_of or datetime.max.replace(tzinfo=UTC)}).fetchall()
    return [FxRate(currency=c, rate_date=d, units_per_eur=u) for c, d, u in rows]


# Rates are facts by (currency, rate date) without a source_id: a reparse counts and removes the rows this
# source's fetches added, then replays them (else it finds every rate present and logs its first fetch as unchanged).
CURRENT_FROM_SOURCE = """SELECT count(*) FROM fx_rates
WHERE valid_to IS NULL AND fetch_id IN (SELECT fetch_id FROM fetch_log WHERE source_id = $source_id)"""
FORGET_SOURCE = "DELETE FROM fx_rates WHERE fetch_id IN (SELECT fetch_id FROM fetch_log WHERE source_id = $source_id)"
