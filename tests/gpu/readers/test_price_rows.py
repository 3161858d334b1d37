"""One GPU price table read row by row: priced rows become offers through the adapter's own reading, a row without
a price is unpriced (never 0), an empty listing or a listing twice is refused naming the source."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.errors import CellError, ParseError
from pipelines.gpu.readers.price_rows import read_price_rows
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, PricePer, StockStatus
from pipelines.reading.tables import Column, HeaderTable, Row
from pipelines.sources.file import SourceSpec

SOURCE = SourceSpec(id="gpu_example", adapter="gpu_hyperstack", url="https://example.com/p", sample="gpu/x.html")
COLUMNS = [Column("gpu", (r"^gpu",)), Column("price", (r"price",))]


def page(*rows: tuple[str, str]) -> bytes:
    cells = "".join(f"<tr><td>{gpu}</td><td>{price}</td></tr>" for gpu, price in rows)
    return f"<table><tr><th>GPU</th><th>Price per hour</th></tr>{cells}</table>".encode()


# What the adapter's own reading of the other columns would say: the same for every row here.
FIXED = {
    "gpu_count": 1,
    "price_kind": GpuPriceKind.ON_DEMAND,
    "price_per": PricePer.GPU,
    "period": BillingPeriod.HOUR,
    "stock_status": StockStatus.UNKNOWN,
}


def offer(row: Row, table: HeaderTable, source: SourceSpec, listing: str, amount: Decimal, currency: str) -> GpuOffer:
    return GpuOffer(listing=listing, gpu_name=listing, amount=amount, currency=currency, **FIXED)


def read(body: bytes):
    return read_price_rows(body, SOURCE, None, COLUMNS, listing="gpu", table_name="the table", offer=offer)


def test_priced_rows_are_offers_and_a_row_without_a_price_is_unpriced() -> None:
    rows = read(page(("H100 SXM", "$2.40"), ("B200", "Contact sales"), ("A100", "$1,234.50")))
    assert [(o.listing, o.amount) for o in rows.offers] == [("H100 SXM", Decimal("2.40")), ("A100", Decimal("1234.50"))]
    assert rows.unpriced == ["B200"]
    assert rows.shape is not None


def test_an_empty_listing_is_refused_naming_the_source() -> None:
    with pytest.raises(CellError, match=r"\[gpu_example\].*empty GPU model cell"):
        read(page(("H100", "$2.40"), ("", "$1.00")))


def test_a_listing_twice_is_refused_naming_the_table() -> None:
    with pytest.raises(ParseError, match=r"\[gpu_example\].*the table"):
        read(page(("H100", "$2.40"), ("H100", "$2.50")))
