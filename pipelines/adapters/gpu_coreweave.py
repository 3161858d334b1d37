"""CoreWeave pricing page (coreweave.com/pricing): a table of GPU instances, one row per node type.

The GPU table reads GPU Model | GPU Count | VRAM (GB) | vCPUs | System RAM (GB) | Local Storage (TB) |
Instance Price (per hour) | Availability, and is found by what its headers mean (the page also carries CPU
and storage tables). The price is USD for the whole node per hour (`$68.80` for 8x B200), so offers are
`price_per = instance` with the node's GPU count from its own column. Availability "Available" or "Limited"
means it can be had (in stock); a row priced "Contact sales" is reported as unpriced, never as a price.
"""

from __future__ import annotations

import re
from decimal import Decimal

from pydantic import ValidationError

from pipelines.errors import CellError
from pipelines.gpu.readers.price_rows import read_price_rows
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer, StockStatus
from pipelines.reading.tables import Column, HeaderTable, Row, read_cell
from pipelines.reading.values import clean, parse_decimal, parse_int, parse_period
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_coreweave/1.0"
PROVIDER = "CoreWeave"  # unless the source names its own (`options.provider`)

COLUMNS = [
    Column("model", (r"^gpu (model|type|name)", r"^(instance|model)$")),
    Column("count", (r"^(gpu count|gpus?|# ?of gpus|number of gpus)$", r"^gpu count")),
    Column("vram", (r"vram", r"gpu memory"), required=False),
    # The whole node's price; a per-GPU price column, should one appear, is not it.
    Column("price", (r"instance price", r"(node|instance|server).*price", r"^price(?!.*\bgpu\b)")),
    Column("availability", (r"availab", r"^status"), required=False),
]


def stock_of(text: str | None) -> StockStatus:
    text = clean(text).lower()
    if re.search(r"sold[\s-]?out|unavailable|not available", text):
        return StockStatus.SOLD_OUT
    if re.search(r"^available\b|\blimited\b|\bin stock\b", text):
        return StockStatus.IN_STOCK
    return StockStatus.UNKNOWN


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GpuRows:
    return read_price_rows(
        body, source, charset, COLUMNS, listing="model", table_name="the instance table", offer=_offer
    )


def _offer(row: Row, table: HeaderTable, source: SourceSpec, listing: str, amount: Decimal, currency: str) -> GpuOffer:
    price_header = table.header_of("price")
    if amount <= 0:
        raise CellError(source.id, row.label, price_header, f"price {amount} is not positive")
    count = read_cell(row, table, "count", source.id, parse_int)
    if count is None or not 1 <= count <= 1024:
        raise CellError(source.id, row.label, table.header_of("count"), f"GPU count {count} is not 1..1024")
    vram = read_cell(row, table, "vram", source.id, parse_decimal) if "vram" in table.columns else None
    if vram is not None and vram <= 0:
        raise CellError(source.id, row.label, table.header_of("vram"), f"VRAM {vram} is not positive")
    status = row.get("availability") if "availability" in table.columns else None
    try:
        return GpuOffer(
            listing=listing,
            gpu_name=listing,
            gpu_count=count,
            price_kind=GpuPriceKind.ON_DEMAND,
            amount=amount,
            currency=currency,
            price_per=PricePer.INSTANCE,
            period=BillingPeriod(parse_period(row.get("price") or "", price_header)),
            stock_status=stock_of(status),
            region=None,
            gpu_memory_gb_printed=vram,
        )
    except ValidationError as exc:
        raise CellError(source.id, row.label, price_header, f"row does not make a valid offer: {exc}") from exc
