"""RunPod Serverless pricing (docs.runpod.io/serverless/pricing): per-second GPU prices for workers that scale to zero.

A Mintlify docs page: top bar, sidebar, headings and prose, then one table, found here by what its headers mean: GPU
type(s) | Memory | Flex | Active | Description, under the heading "Pricing table (per second)" (a price column's own
header or cell may state the period instead; the heading over the table is read when neither does). Each row is a GPU
*pool* ("A4000, A4500, RTX 4000" | "16 GB"): one price covers every card named in it. Prices are USD per GPU-second,
printed to 5 decimals (`$0.00116`), no hourly figure. "Flex" workers scale to zero (SERVERLESS); "active" workers are
always on (SERVERLESS_ACTIVE). The active column is optional (the docs dropped it in 2026-05), and an empty active cell
gives no active offer; a flex cell that is empty gives an unpriced listing.

One row yields one offer per GPU in its pool, per price kind, named "serverless pool 16 GB (A4000, A4500, RTX 4000):
A4000" so the listing says it is a pool price. The GPU name is kept as printed ("3090", "H100 PRO"), "RTX " prefixed
only where the catalog knows the prefixed name and not the printed one ("3090" -> "RTX 3090").

The billing terms (charged by the second, partial seconds rounded up to the next full second; start, execution and idle
time billed; idle timeout 5 s by default) are read from the page's own sentences by pipelines.gpu.readers.billing_terms;
a page that no longer states its billed increment is refused.
"""

from __future__ import annotations

import re
from decimal import Decimal

from bs4 import BeautifulSoup
from pydantic import ValidationError

from pipelines.errors import CellError
from pipelines.gpu.gpu_names import canonical
from pipelines.gpu.readers.billing_terms import serverless_billing
from pipelines.gpu.records import (
    BillingPeriod,
    GpuOffer,
    GpuPriceKind,
    GpuRows,
    PricePer,
    ServerlessBilling,
    StockStatus,
)
from pipelines.reading.tables import Column, HeaderTable, Row, locate, read_cell, refuse_duplicates, soup_of
from pipelines.reading.values import clean, is_empty, parse_memory, parse_money, parse_period
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_runpod_serverless/1.1"
PROVIDER = "RunPod"  # unless the source names its own (`options.provider`)
CURRENCY = "USD"

COLUMNS = [
    Column("gpu", (r"^gpus?(\s+(types?|type\(s\)|models?|pools?|names?))?$",)),
    Column("memory", (r"\bmemory\b", r"\bvram\b"), required=False),
    Column("flex", (r"\bflex\b", r"^(cost|price)\b.*\bper\s+(sec|second)\b")),
    Column("active", (r"\bactive\b",), required=False),
]
# Price kind of each price column, in the order offers are emitted.
KINDS = (("flex", GpuPriceKind.SERVERLESS), ("active", GpuPriceKind.SERVERLESS_ACTIVE))
_POOL_SPLIT = re.compile(r"\s*(?:,|/|\band\b)\s*")


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GpuRows:
    soup = soup_of(body, charset)
    page_text = soup.get_text(" ")  # before locate(), which drops footnote <sup>s from the table
    table = locate(soup, COLUMNS, source.id)
    stated = _heading_period(soup, table)
    billing = serverless_billing(page_text, source)
    offers: list[GpuOffer] = []
    unpriced: list[str] = []
    for row in table.rows("gpu"):
        printed = _pool(row, table, source)
        memory = read_cell(row, table, "memory", source.id, _memory) if "memory" in table.columns else None
        size = f" {memory[0]} {memory[1]}" if memory else ""
        pool = f"serverless pool{size} ({', '.join(printed)})"  # the pool as printed: unique, says it is a pool
        gpus = [(f"{pool}: {_catalog_name(name)}", _catalog_name(name)) for name in printed]
        for key, kind in KINDS:
            amount = read_cell(row, table, key, source.id, _per_second_usd) if key in table.columns else None
            if amount is None:  # no flex figure: unpriced; no active figure: simply no active offer
                unpriced.extend(listing for listing, _ in gpus if kind == GpuPriceKind.SERVERLESS)
                continue
            _check_period(row, table, key, source, stated)
            offers.extend(
                _offer(row, table, source, key, kind, listing, gpu, amount, memory, billing) for listing, gpu in gpus
            )
    for _, kind in KINDS:
        refuse_duplicates(source.id, [o.listing for o in offers if o.price_kind == kind], f"the {kind.value} prices")
    refuse_duplicates(source.id, unpriced, "the unpriced pools")
    return GpuRows(
        shape=table.fingerprint,
        offers=offers,
        unpriced=unpriced,
    )


def _pool(row: Row, table: HeaderTable, source: SourceSpec) -> list[str]:
    printed = [name for name in _POOL_SPLIT.split(clean(row.get("gpu"))) if name]
    if not printed:
        raise CellError(source.id, row.label, table.header_of("gpu"), "empty GPU type cell")
    return printed


def _catalog_name(printed: str) -> str:
    """The GPU as printed, or with "RTX " before it when only that spelling is one the catalog knows."""
    if canonical(printed) is not None or printed.upper().startswith("RTX"):
        return printed
    prefixed = f"RTX {printed}"
    return prefixed if canonical(prefixed) is not None else printed


def _memory(text: str | None) -> tuple[Decimal, str] | None:
    """`16 GB` -> (16, 'GB'), the unit as printed; a unit other than GB or GiB (an offer holds no other) is refused."""
    memory = parse_memory(text)
    if memory is not None and memory[1] not in ("GB", "GiB"):
        raise ValueError(f"memory cell {text!r} is in {memory[1]}, not GB or GiB")
    return memory


def _per_second_usd(text: str | None) -> Decimal | None:
    """`$0.00116` -> Decimal('0.00116'); empty -> None; a cell stating no figure is refused, never read as zero."""
    if is_empty(text):
        return None
    amount = parse_money(text, CURRENCY)
    if amount is None:
        raise ValueError(f"no amount in price cell {text!r}")
    if amount <= 0:
        raise ValueError(f"price {amount} in cell {text!r} is not positive")
    return amount


def _heading_period(soup: BeautifulSoup, table: HeaderTable) -> str:
    """The period the heading or caption over the table states ("Pricing table (per second)"), else "unstated"."""
    for tag in soup.find_all("table"):
        text = tag.get_text(" ")
        if all(clean(header) in clean(text) for header in table.headers):
            above = tag.find("caption") or tag.find_previous(re.compile(r"^h[1-6]$"))
            return parse_period(above.get_text(" ") if above else "", default="unstated")
    return "unstated"


def _check_period(row: Row, table: HeaderTable, key: str, source: SourceSpec, stated: str) -> None:
    header = table.header_of(key)
    # The cell, else its header, else the heading over the table (the real page's "Pricing table (per second)").
    period = parse_period(row.get(key) or "", header, default=stated)
    if period != BillingPeriod.SECOND.value:
        raise CellError(source.id, row.label, header, f"price is per {period}, not per second as this page prints")


def _offer(
    row: Row,
    table: HeaderTable,
    source: SourceSpec,
    key: str,
    kind: GpuPriceKind,
    listing: str,
    gpu: str,
    amount: Decimal,
    memory: tuple[Decimal, str] | None,
    billing: ServerlessBilling,
) -> GpuOffer:
    try:
        return GpuOffer(
            listing=listing,
            gpu_name=gpu,
            gpu_count=1,
            price_kind=kind,
            amount=amount,
            currency=CURRENCY,
            price_per=PricePer.GPU,
            period=BillingPeriod.SECOND,
            stock_status=StockStatus.UNKNOWN,
            region=None,
            gpu_memory_gb_printed=memory[0] if memory else None,
            gpu_memory_unit=memory[1] if memory else "GB",
            serverless=billing,
        )
    except ValidationError as exc:
        raise CellError(source.id, row.label, table.header_of(key), f"row does not make a valid offer: {exc}") from exc
