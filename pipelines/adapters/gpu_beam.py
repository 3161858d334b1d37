"""Beam pricing page (docs.beam.cloud/v2/resources/pricing-and-billing): serverless GPUs billed per second,
scaling to zero.

A Mintlify docs page. Its price list is one table, found by what its headers mean: Resource | Price (Per Second) |
Price (Per Hour). One row per GPU (`T4 GPU`, `RTX 4090 GPU`, `A100-80 GPU`, ...), priced per GPU: the per-second
figure is the price, exactly as printed (`$0.000955`); the hourly one (`$3.44`) is a rounded display figure, checked
against per-second x 3,600 at its printed decimals (a page that disagrees with itself is refused). The A100 rows
carry their memory in the name (`A100-40`, `A100-80`): the listing keeps the name as printed, the GPU name spells
the memory out (`A100 80GB GPU`) so the catalog knows it, and the memory printed is taken from the name.

CPU (per core) and RAM (per GB) are billed on top of the GPU, per second, and are not landed: they are not GPU
offers. `File Storage` (`Included`) is skipped too. A GPU row with no price, or "contact us", is reported as
unpriced; any other cell this parser cannot read is a CellError naming the row.

Billing terms are read from the page's sentences (pipelines.gpu.readers.billing_terms): billed per second; on_start,
run time and keep-warm billed; waiting for a machine and the image pull not billed; the default keep-warm for
endpoints (180 s) is the idle timeout, as ratecard models serving endpoints. All prices are USD, no region.
"""

from __future__ import annotations

import re
from decimal import Decimal

from pydantic import ValidationError

from pipelines.errors import CellError
from pipelines.gpu.readers.billing_terms import hourly_disagreement, page_prose, serverless_billing
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
from pipelines.reading.values import clean, is_empty, parse_memory, parse_money
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_beam/1.0"
PROVIDER = "Beam"  # unless the source names its own (`options.provider`)
CURRENCY = "USD"

COLUMNS = [
    Column("resource", (r"^resources?$", r"^(gpu|hardware|machine|instance)( type| name)?$")),
    Column("per_second", (r"per[\s-]*sec(ond)?", r"/\s*s(ec(ond)?)?\b", r"\bsecond\b")),
    Column("per_hour", (r"per[\s-]*h(ou)?r", r"/\s*h(ou)?r\b", r"\bhour\b"), required=False),
]

# Resources on the price list that are not GPUs: billed on top (CPU, memory) or included (storage).
_NOT_GPU = re.compile(r"^(v?cpus?|ram|memory|(file |block |volume )?storage|disk|network|egress|bandwidth)\b", re.I)
_ASK = re.compile(r"\b(contact|coming soon|on request|ask)\b", re.IGNORECASE)
_SECOND = re.compile(r"^(?:US)?\$\s?(\d+(?:\.\d+)?)(?:\s*(?:/|per)\s*(?:gpu|s|secs?|seconds?))*$", re.IGNORECASE)
_HOUR = re.compile(r"^(?:US)?\$\s?(\d+(?:\.\d+)?)(?:\s*(?:/|per)\s*(?:gpu|h|hrs?|hours?))*$", re.IGNORECASE)
_MEMORY_IN_NAME = re.compile(r"^(?P<model>.*?[A-Z]+\d+[A-Z]*)-(?P<gb>\d{2,3})(?=\s|$)(?P<rest>.*)$", re.IGNORECASE)


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GpuRows:
    soup = soup_of(body, charset)
    table = locate(soup, COLUMNS, source.id)
    terms = serverless_billing(page_prose(soup), source)
    offers: list[GpuOffer] = []
    unpriced: list[str] = []
    for row in table.rows("resource"):
        listing = clean(row.get("resource"))
        if not listing:
            raise CellError(source.id, row.label, table.header_of("resource"), "empty resource cell")
        if _NOT_GPU.match(listing):
            continue  # CPU and RAM are billed on top of the GPU; storage is included: not GPU offers
        cell = clean(row.get("per_second"))
        if is_empty(cell) or _ASK.search(cell):
            unpriced.append(listing)
            continue
        per_second = read_cell(row, table, "per_second", source.id, lambda text: _amount(text, _SECOND, "second"))
        if "per_hour" in table.columns:
            _check_hourly(row, table, source, per_second)
        offers.append(_offer(row, table, source, listing, per_second, terms))
    refuse_duplicates(source.id, [o.listing for o in offers] + unpriced, "the price list")
    return GpuRows(
        shape=table.fingerprint,
        offers=offers,
        unpriced=unpriced,
    )


def _amount(text: str | None, shape: re.Pattern[str], period: str) -> Decimal:
    """A dollar figure alone in its cell (optionally `/s`, `per GPU`), exactly as printed; anything else refused."""
    cell = clean(text)
    if shape.match(cell) is None:
        raise ValueError(f"not a USD price per GPU-{period}: {cell!r}")
    amount = parse_money(cell, CURRENCY)
    if amount is None or amount <= 0:
        raise ValueError(f"price {cell!r} is not positive")
    return amount


def _check_hourly(row: Row, table: HeaderTable, source: SourceSpec, per_second: Decimal) -> None:
    """The hourly display figure must be per-second x 3,600 rounded to the decimals it prints."""
    if is_empty(row.get("per_hour")):
        return
    hourly = read_cell(row, table, "per_hour", source.id, lambda text: _amount(text, _HOUR, "hour"))
    if (disagreement := hourly_disagreement(per_second, hourly)) is not None:
        raise CellError(source.id, row.label, table.header_of("per_hour"), disagreement)


def gpu_name_and_memory(listing: str) -> tuple[str, Decimal | None]:
    """`A100-80 GPU` -> ('A100 80GB GPU', 80): memory carried in the name, spelled so the catalog knows it.
    A name printing `80GB` keeps it; a name printing no memory has none."""
    if (match := _MEMORY_IN_NAME.match(listing)) is not None:
        memory = Decimal(match.group("gb"))
        return f"{match.group('model')} {memory}GB{match.group('rest')}", memory
    if re.search(r"\d\s?GB\b", listing, re.IGNORECASE):
        printed = parse_memory(listing)
        if printed is not None and printed[1] == "GB":
            return listing, printed[0]
    return listing, None


def _offer(
    row: Row, table: HeaderTable, source: SourceSpec, listing: str, per_second: Decimal, terms: ServerlessBilling
) -> GpuOffer:
    gpu_name, memory = gpu_name_and_memory(listing)
    try:
        return GpuOffer(
            listing=listing,
            gpu_name=gpu_name,
            gpu_count=1,
            price_kind=GpuPriceKind.SERVERLESS,
            amount=per_second,
            currency=CURRENCY,
            price_per=PricePer.GPU,
            period=BillingPeriod.SECOND,
            stock_status=StockStatus.UNKNOWN,
            region=None,
            gpu_memory_gb_printed=memory,
            gpu_memory_unit="GB",
            serverless=terms,
        )
    except ValidationError as exc:
        raise CellError(
            source.id, row.label, table.header_of("per_second"), f"row does not make a valid offer: {exc}"
        ) from exc
