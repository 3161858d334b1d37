"""Hyperstack GPU pricing page (hyperstack.cloud/gpu-pricing): one on-demand table, one row per GPU model.

The table (today `<table id="tblSortTest_jquery">`, found here by what its headers mean, not by id) reads
GPU model | VRAM (GB) | Max pCPUs per GPU | Max RAM (GB) per GPU | on-demand price | an unlabelled last cell
with a link. Prices are USD per GPU-hour (`$ 2.40 per Hour`; billing is per minute, the rate is hourly), one
GPU per row, no region. The link says whether the row can be had: "Deploy now" -> in stock, "Sold out" ->
sold out, "Reserve" (or anything else) -> unknown. A row without a price is reported as unpriced.
"""

from __future__ import annotations

import re
from decimal import Decimal

from pydantic import ValidationError

from pipelines.errors import CellError
from pipelines.gpu.readers.price_rows import read_price_rows
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer, StockStatus
from pipelines.reading.tables import Column, HeaderTable, Row, read_cell
from pipelines.reading.values import clean, parse_decimal, parse_period
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_hyperstack/1.1"
PROVIDER = "Hyperstack"  # unless the source names its own (`options.provider`)

COLUMNS = [
    Column("gpu", (r"^gpu( model| type| name)?$", r"^gpu model")),
    Column("vram", (r"vram", r"gpu memory"), required=False),
    # "Pricing Per Hour" beside "Reservation Pricing": the page's on-demand column in 2024.
    Column("price", (r"on-?\s?demand", r"pay[- ]as[- ]you[- ]go", r"^price", r"^pricing per hour")),
    Column("status", (r"^$", r"^(action|availability|status|deploy)"), required=False),
]


def stock_of(text: str | None) -> StockStatus:
    text = clean(text).lower()
    if re.search(r"sold[\s-]?out|unavailable", text):
        return StockStatus.SOLD_OUT
    if re.search(r"\bdeploy\b", text):
        return StockStatus.IN_STOCK
    return StockStatus.UNKNOWN  # "Reserve", blank, or wording this parser does not know


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GpuRows:
    return read_price_rows(
        body, source, charset, COLUMNS, listing="gpu", table_name="the on-demand table", offer=_offer
    )


def _offer(row: Row, table: HeaderTable, source: SourceSpec, listing: str, amount: Decimal, currency: str) -> GpuOffer:
    price_header = table.header_of("price")
    if amount <= 0:
        raise CellError(source.id, row.label, price_header, f"price {amount} is not positive")
    vram = read_cell(row, table, "vram", source.id, parse_decimal) if "vram" in table.columns else None
    if vram is not None and vram <= 0:
        raise CellError(source.id, row.label, table.header_of("vram"), f"VRAM {vram} is not positive")
    try:
        return GpuOffer(
            listing=listing,
            gpu_name=listing,
            gpu_count=1,
            price_kind=GpuPriceKind.ON_DEMAND,
            amount=amount,
            currency=currency,
            price_per=PricePer.GPU,
            period=BillingPeriod(parse_period(row.get("price") or "", price_header)),
            stock_status=stock_of(row.get("status")) if "status" in table.columns else StockStatus.UNKNOWN,
            region=None,
            gpu_memory_gb_printed=vram,
        )
    except ValidationError as exc:
        raise CellError(source.id, row.label, price_header, f"row does not make a valid offer: {exc}") from exc
