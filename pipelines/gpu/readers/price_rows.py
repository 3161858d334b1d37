"""A GPU price table read row by row, the same way for every provider whose page is one table of priced rows.

The table is found by what its headers mean (`locate`); each row names its listing (an empty name is refused) and
its price. A row whose price cell holds no price ("Contact sales", blank, a dash) is reported as unpriced, never as
a price; a priced row becomes an offer through the adapter's own `offer` (what its other columns mean); a
listing twice is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

from pipelines.errors import CellError
from pipelines.gpu.records import GpuOffer, GpuRows
from pipelines.reading.tables import Column, HeaderTable, Row, locate, read_cell, refuse_duplicates, soup_of
from pipelines.reading.values import clean, parse_money
from pipelines.sources.file import SourceSpec

# (row, table, source, listing, amount, currency) -> the row's offer
OfferOf = Callable[[Row, HeaderTable, SourceSpec, str, Decimal, str], GpuOffer]


def read_price_rows(
    body: bytes,
    source: SourceSpec,
    charset: str | None,
    columns: Sequence[Column],
    *,
    listing: str,
    table_name: str,
    offer: OfferOf,
) -> GpuRows:
    """`listing` is the column naming each row; `table_name` says which table in a refusal."""
    table = locate(soup_of(body, charset), columns, source.id)
    currency = source.options.get("currency", "USD")
    offers: list[GpuOffer] = []
    unpriced: list[str] = []
    for row in table.rows(listing):
        name = clean(row.get(listing))
        if not name:
            raise CellError(source.id, row.label, table.header_of(listing), "empty GPU model cell")
        amount = read_cell(row, table, "price", source.id, lambda t: parse_money(t, currency))
        if amount is None:  # "Contact sales", blank or a dash: listed without a price
            unpriced.append(name)
            continue
        offers.append(offer(row, table, source, name, amount, currency))
    refuse_duplicates(source.id, [o.listing for o in offers] + unpriced, table_name)
    return GpuRows(offers=offers, unpriced=unpriced, shape=table.fingerprint)
