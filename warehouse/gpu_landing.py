"""The GPU listings table (versioned) and the FX rates table (append-only), and reading rates back."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pyarrow as pa

from schemas.gpu import FxBatch, FxRate
from warehouse.landing import MONEY, Snapshot
from warehouse.versioning import AppendOnlyTable, VersionedTable

GPU_LISTINGS = VersionedTable(
    name="gpu_listing_history",
    key_columns=("listing", "price_kind", "region"),
    attribute_fields=(
        pa.field("provider", pa.string()),
        pa.field("listing", pa.string()),
        pa.field("gpu_name", pa.string()),
        pa.field("gpu_model", pa.string()),
        pa.field("gpu_variant", pa.string()),
        pa.field("gpu_memory_gib", pa.decimal128(18, 6)),
        pa.field("gpu_count", pa.int32()),
        pa.field("price_kind", pa.string()),
        pa.field("original_amount", MONEY),
        pa.field("original_currency", pa.string()),
        pa.field("original_unit", pa.string()),
        pa.field("price_per", pa.string()),
        pa.field("period", pa.string()),
        pa.field("usd_per_currency_unit", pa.decimal128(20, 10)),
        pa.field("fx_rate_date", pa.date32()),
        pa.field("usd_per_gpu_hour", pa.decimal128(38, 18)),
        pa.field("usd_per_gpu_hour_4dp", pa.decimal128(18, 4)),
        pa.field("stock_status", pa.string()),
        pa.field("region", pa.string()),
        pa.field("offer_count", pa.int32()),
    ),
)

FX_RATES = AppendOnlyTable(
    name="fx_rates",
    key_columns=("currency", "rate_date"),
    fields=(pa.field("currency", pa.string()), pa.field("rate_date", pa.date32()),
            pa.field("units_per_eur", MONEY)),
)

# Rates known at `as_of`: a replayed fetch converts with the rates it could have seen, not later ones.
FX_RATES_KNOWN_AT = """
SELECT currency, rate_date, units_per_eur FROM fx_rates WHERE fetched_at <= $as_of ORDER BY rate_date, currency
"""


def gpu_snapshots(batch) -> list[Snapshot]:
    """`batch` is a NormalisedBatch (pipelines.gpu.normalise)."""
    rows = []
    for listing in batch.listings:
        row = listing.model_dump(mode="python")
        row["original_unit"] = listing.original_unit
        rows.append({k: (v.value if hasattr(v, "value") else v) for k, v in row.items()})
    return [Snapshot(GPU_LISTINGS, rows)]


def fx_snapshots(batch: FxBatch) -> list[Snapshot]:
    return [Snapshot(FX_RATES, [r.model_dump(mode="python") for r in batch.rates])]


def load_fx_rates(con: duckdb.DuckDBPyConnection, as_of: datetime | None = None) -> list[FxRate]:
    rows = con.execute(FX_RATES_KNOWN_AT, {"as_of": as_of or datetime.max.replace(tzinfo=UTC)}).fetchall()
    return [FxRate(currency=c, rate_date=d, units_per_eur=u) for c, d, u in rows]
