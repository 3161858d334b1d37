"""Replicate pricing page (replicate.com/pricing): serverless hardware billed per second, scaling to zero.

One table, found by what its headers mean: Hardware | Price | GPU | CPU | GPU RAM | RAM. The hardware cell is a
display name and the SKU (`Nvidia A100 (80GB) GPU` / `gpu-a100-large`); the SKU is the listing. The price cell
has two lines, `$0.001400/sec` and `$5.04/hr`: the per-second figure is the price, exactly as printed; the hourly
one is a rounded display figure, checked against per-second x 3,600 at its printed decimals (a page that
disagrees with itself is refused). The GPU column prints the count (`1x`, `8x`); the GPU RAM column prints the
whole instance's memory (`96GB` for 2x L40S), so per-GPU memory is that divided by the count. A price covers
the instance, so multi-GPU SKUs (`gpu-h100-8x`, `gpu-2x-l40s`) are priced per instance. An "Additional hardware"
block gives a spanning note ("Contact us for access") in place of the GPU/CPU/RAM cells: the count then comes
from the SKU or the display name. The `cpu` row has no GPU and is skipped (not unpriced).

Billing terms are read from the page's sentences (pipelines.gpu.readers.billing_terms): "billed by the second";
for public models setup and idle time are not billed; no idle timeout is stated. All prices are USD, no region.
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
from pipelines.reading.values import clean, is_empty, parse_memory, parse_money, parse_period
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_replicate/1.0"
PROVIDER = "Replicate"  # unless the source names its own (`options.provider`)
CURRENCY = "USD"

COLUMNS = [
    Column("hardware", (r"^hardware", r"^(instance|machine)( type)?$", r"^sku$")),
    Column("price", (r"^price", r"per second", r"^cost")),
    Column("gpu", (r"^gpus?( count)?$", r"^# ?gpus?$")),
    Column("cpu", (r"^v?cpus?( count)?$",), required=False),
    Column("vram", (r"^gpu (ram|memory)", r"vram"), required=False),
    Column("ram", (r"^(system )?(ram|memory)$",), required=False),
]
SPEC_KEYS = ("gpu", "cpu", "vram", "ram")

_SKU = re.compile(r"^(?:cpu|[a-z0-9]+(?:-[a-z0-9]+)+)$")
_SKU_COUNT = re.compile(r"(?:^|-)(\d+)x(?:-|$)")
_NAME_COUNT = re.compile(r"^(\d+)\s*[x×]\s+", re.IGNORECASE)
_CELL_COUNT = re.compile(r"^(\d+)\s*[x×]?$", re.IGNORECASE)
_FIGURE = re.compile(r"(?P<money>(?:US)?\$?\s*-?\s*\d[\d,]*(?:\.\d+)?)\s*(?:/|\bper\s+)\s*(?P<unit>[a-z]+)", re.I)
_FILLER = re.compile(r"^[\s()\[\],;|·]*$")


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GpuRows:
    soup = soup_of(body, charset)
    table = locate(soup, COLUMNS, source.id)
    terms = serverless_billing(page_prose(soup), source)
    offers: list[GpuOffer] = []
    unpriced: list[str] = []
    for row in table.rows("hardware"):
        if not any(row.get(key) for key in table.columns if key != "hardware"):
            continue  # a group heading that is not one spanning cell ("Additional hardware")
        name, sku = _hardware(row, table, source)
        count = _gpu_count(row, table, source, name, sku)
        if count is None:
            continue  # no GPU (the `cpu` row): not a GPU offer
        if is_empty(row.get("price")):
            unpriced.append(sku)
            continue
        per_second = read_cell(row, table, "price", source.id, _per_second)
        offers.append(_offer(row, table, source, sku, _NAME_COUNT.sub("", name), count, per_second, terms))
    refuse_duplicates(source.id, [o.listing for o in offers] + unpriced, "the hardware table")
    return GpuRows(
        shape=table.fingerprint,
        offers=offers,
        unpriced=unpriced,
    )


def _hardware(row: Row, table: HeaderTable, source: SourceSpec) -> tuple[str, str]:
    """`Nvidia A100 (80GB) GPU gpu-a100-large` -> ('Nvidia A100 (80GB) GPU', 'gpu-a100-large')."""
    text = clean(row.get("hardware"))
    name, _, sku = text.rpartition(" ")
    if not name or not _SKU.match(sku):
        raise CellError(source.id, row.label, table.header_of("hardware"), "no display name followed by a SKU")
    return name, sku


def _is_note(row: Row, table: HeaderTable) -> bool:
    """A note spanning the spec cells: grid() repeats its text into each column it covers, so all read the same."""
    cells = [clean(row.get(key)) for key in SPEC_KEYS if key in table.columns]
    return len(cells) > 1 and bool(cells[0]) and len(set(cells)) == 1


def _gpu_count(row: Row, table: HeaderTable, source: SourceSpec, name: str, sku: str) -> int | None:
    """The GPU count the row states (column, SKU, display name, which must agree); None for a row with no GPU."""
    header = table.header_of("gpu")
    cell = clean(row.get("gpu"))
    column: int | None = None  # None: the column states no count (a dash, or a note spanning the spec cells)
    if not is_empty(cell) and not _is_note(row, table):
        if (match := _CELL_COUNT.match(cell)) is None:
            raise CellError(source.id, row.label, header, f"no GPU count in {cell!r}")
        column = int(match.group(1))
    named = [int(m.group(1)) for m in (_SKU_COUNT.search(sku), _NAME_COUNT.match(name)) if m is not None]
    is_gpu = sku.startswith("gpu") or re.search(r"\bgpu\b", name, re.IGNORECASE) is not None
    if column == 0 or (column is None and is_empty(cell)):
        if is_gpu or named:
            raise CellError(source.id, row.label, header, f"the GPU column says none but the row names {sku!r}")
        return None
    stated = ([column] if column is not None else []) + named
    if not stated and not is_gpu:
        return None
    if len(set(stated)) > 1:
        raise CellError(source.id, row.label, header, f"GPU counts disagree (column, SKU, name): {stated}")
    count = stated[0] if stated else 1
    if not 1 <= count <= 1024:
        raise CellError(source.id, row.label, header, f"GPU count {count} out of range")
    return count


def _per_second(text: str | None) -> Decimal:
    """The per-second price; the hourly figure beside it must be it x 3,600 at the hourly's printed decimals."""
    cell = clean(text)
    figures: dict[str, list[Decimal]] = {}
    for match in _FIGURE.finditer(cell):
        money = match.group("money")
        if "$" not in money:
            raise ValueError(f"price {money!r} in {cell!r} names no currency")
        amount = parse_money(money, CURRENCY)
        period = parse_period("/" + match.group("unit"), default="unknown")
        if amount is None or period not in ("second", "hour"):
            raise ValueError(f"unreadable price {match.group(0)!r} in {cell!r}")
        figures.setdefault(period, []).append(amount)
    if not _FILLER.match(_FIGURE.sub("", cell)):
        raise ValueError(f"unreadable text in price cell {cell!r}")
    seconds, hours = figures.get("second", []), figures.get("hour", [])
    if len(seconds) != 1 or len(hours) > 1:
        raise ValueError(f"expected one $/sec figure and at most one $/hr figure in {cell!r}")
    per_second = seconds[0]
    if per_second <= 0:
        raise ValueError(f"price {per_second} is not positive")
    if hours and (disagreement := hourly_disagreement(per_second, hours[0])) is not None:
        raise ValueError(disagreement)
    return per_second


def _offer(
    row: Row,
    table: HeaderTable,
    source: SourceSpec,
    sku: str,
    gpu_name: str,
    count: int,
    per_second: Decimal,
    terms: ServerlessBilling,
) -> GpuOffer:
    memory = None
    if "vram" in table.columns and not _is_note(row, table):
        memory = read_cell(row, table, "vram", source.id, _memory)
    try:
        return GpuOffer(
            listing=sku,
            gpu_name=gpu_name,
            gpu_count=count,
            price_kind=GpuPriceKind.SERVERLESS,
            amount=per_second,
            currency=CURRENCY,
            price_per=PricePer.GPU if count == 1 else PricePer.INSTANCE,
            period=BillingPeriod.SECOND,
            stock_status=StockStatus.UNKNOWN,
            region=None,
            gpu_memory_gb_printed=memory[0] / count if memory else None,
            gpu_memory_unit=memory[1] if memory else "GB",
            serverless=terms,
        )
    except ValidationError as exc:
        raise CellError(
            source.id, row.label, table.header_of("price"), f"row does not make a valid offer: {exc}"
        ) from exc


def _memory(text: str | None) -> tuple[Decimal, str] | None:
    memory = parse_memory(text)
    if memory is not None and (memory[1] not in ("GB", "GiB") or memory[0] <= 0):
        raise ValueError(f"unreadable GPU memory {text!r}")
    return memory
