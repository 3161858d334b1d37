"""The search over `accelerator_offers`: filters in, an Arrow table of offers out, cheapest first in the unit asked.

Money stays DECIMAL from the view to the table (Arrow decimal128): the month and the totals are computed by DuckDB
on the exact figures, never in floating point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import pyarrow as pa

from pipelines.offers.names import known_accelerator, known_kind, known_provider, known_region
from pipelines.offers.units import HOURS_PER_MONTH, Per
from warehouse.binding import bound
from warehouse.db import connect
from warehouse.files import WarehouseMissing
from warehouse.publish import readable
from warehouse.target import exists

Read = TypeVar("Read")
# The column each unit's price is in; the month is one offering's, 730 hours, as its name says.
PRICE_COLUMN = {
    Per.accel_hour: "usd_per_accelerator_hour",
    Per.instance_hour: "usd_per_instance_hour",
    Per.month: "usd_per_offering_month_730h",
}
TOTAL_COLUMN = {Per.accel_hour: "total_usd_per_hour", Per.instance_hour: "total_usd_per_hour"}
TOTAL_MONTH = "total_usd_per_month_730h"


@dataclass(frozen=True)
class OfferSearch:
    """What `ratecard find` and `ratecard.query` filter on; None (or False) filters nothing."""

    accelerator: str | None = None  # any name accelerator_names gives it, case ignored
    count: int | None = None  # at least this many accelerators in one offering
    total: int | None = None  # this many accelerators across offerings: how many offerings, at what total
    memory_gib: Decimal | None = None  # at least this much memory per accelerator
    region: str | None = None  # a code, a location name, or None / "any"
    kind: str = "on-demand"  # a family (spot, reserved, savings plans, ...), one exact price kind, or "all"
    provider: str | None = None
    max_price: Decimal | None = None  # in the unit `per`
    in_stock: bool = False  # only offers whose provider states they are in stock
    per: Per = Per.accel_hour

    @property
    def price_column(self) -> str:
        return PRICE_COLUMN[self.per]

    @property
    def total_column(self) -> str:
        return TOTAL_COLUMN.get(self.per, TOTAL_MONTH)


SHOWN = f"""
provider, offering, accelerator_model, accelerator_variant, accelerators_per_offering, accelerator_memory_gib,
price_kind, terms, region, region_code, stock_status, usd_per_accelerator_hour, usd_per_instance_hour,
usd_per_instance_hour * {HOURS_PER_MONTH} AS usd_per_offering_month_730h,
"""
# Offerings needed for N accelerators, rounded up exactly: the count's scale is 6, so micro-units are integers.
OFFERINGS_NEEDED = (
    "CAST((CAST($total AS HUGEINT) * 1000000 + CAST(accelerators_per_offering * 1000000 AS HUGEINT) - 1)"
    " // CAST(accelerators_per_offering * 1000000 AS HUGEINT) AS BIGINT)"
)
WANTED_MODELS = """
WITH wanted AS (
    SELECT accelerator_model,
           CASE WHEN bool_or(accelerator_variant IS NULL) THEN NULL ELSE list(DISTINCT accelerator_variant) END
               AS variants
    FROM accelerator_names WHERE lower(name) = $accelerator
    GROUP BY accelerator_model
)
"""
ACCELERATOR_IS_WANTED = """EXISTS (SELECT 1 FROM wanted AS w WHERE w.accelerator_model = o.accelerator_model
    AND (w.variants IS NULL OR list_contains(w.variants, o.accelerator_variant)))"""


def offers_query(con: duckdb.DuckDBPyConnection, search: OfferSearch) -> tuple[str, dict[str, Any]]:
    """The SQL and its parameters; a name the warehouse holds nothing under is refused (UnknownName)."""
    where, params = ["true"], dict[str, Any]()
    if search.accelerator is not None:
        params["accelerator"] = known_accelerator(con, search.accelerator)
        where.append(ACCELERATOR_IS_WANTED)
    if search.region is not None and (region := known_region(con, search.region)) is not None:
        params["region"] = region
        where.append("(lower(region_code) = $region OR lower(region) = $region)")
    if (kind := known_kind(con, search.kind)) is not None:
        params["kind"] = kind[1]
        where.append(f"{kind[0]} = $kind")
    if search.provider is not None:
        params["provider"] = known_provider(con, search.provider)
        where.append("lower(provider) = $provider")
    if search.count is not None:
        params["count"] = search.count
        where.append("accelerators_per_offering >= $count")
    if search.memory_gib is not None:
        params["memory"] = search.memory_gib
        where.append("accelerator_memory_gib >= CAST($memory AS DECIMAL(38, 12))")
    if search.in_stock:
        where.append("stock_status = 'in_stock'")
    columns = SHOWN
    order = search.price_column
    if search.total is not None:
        params["total"] = search.total
        hours = f" * {HOURS_PER_MONTH}" if search.per is Per.month else ""
        columns += f"{OFFERINGS_NEEDED} AS offerings_needed, "
        columns += f"{OFFERINGS_NEEDED} * usd_per_instance_hour{hours} AS {search.total_column}, "
        order = search.total_column  # N accelerators cost what their offerings cost together
    columns += "fetched_at, source_id, source_url, content_sha256, parser_version"
    priced = "true"  # on the unit's column, which only the outer query sees (the month is computed)
    if search.max_price is not None:
        params["max_price"] = search.max_price
        priced = f"{search.price_column} <= CAST($max_price AS DECIMAL(38, 18))"
    conditions = " AND ".join(where)  # constant predicates; every value is a bound parameter
    sql = (
        (WANTED_MODELS if search.accelerator is not None else "")
        + f"SELECT * FROM (SELECT {columns} FROM accelerator_offers AS o WHERE {conditions}) "
        + f"WHERE {priced} ORDER BY {order}, provider, offering, region NULLS LAST, price_kind, terms NULLS FIRST, "
        + "source_id"
    )
    return sql, params


def find_offers(con: duckdb.DuckDBPyConnection, search: OfferSearch) -> pa.Table:
    """The offers that pass every filter, cheapest first in the unit asked (ties: provider, offering, region)."""
    sql, params = offers_query(con, search)
    return con.sql(sql, params=bound(params)).to_arrow_table()


def find_in_snapshot(db: Path | str, search: OfferSearch, *, wait_s: float = 30.0) -> pa.Table:
    """`find_offers` on the warehouse's published snapshot, opened read-only (never the file a refresh writes)."""
    return read_snapshot(db, lambda con: find_offers(con, search), wait_s=wait_s)


def read_snapshot(db: Path | str, read: Callable[[duckdb.DuckDBPyConnection], Read], *, wait_s: float = 30.0) -> Read:
    """What `read` reads from the warehouse's published snapshot, opened read-only; a missing warehouse, or a
    snapshot published before the offers views, is the user's to fix (WarehouseMissing)."""
    if not exists(db):
        raise WarehouseMissing(db, "does not exist yet")
    with connect(readable(db), read_only=True, wait_s=wait_s) as con:
        try:
            return read(con)
        except duckdb.CatalogException as exc:  # a snapshot published by an earlier release: a refresh publishes them
            raise WarehouseMissing(db, f"its published snapshot predates the offers views ({exc})") from exc
