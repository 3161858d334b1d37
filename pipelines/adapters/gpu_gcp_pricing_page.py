"""Google Cloud's GPU pricing page (cloud.google.com/compute/gpus-pricing): accelerator-optimised machine types.

The page holds one table per machine series group (A4/A3/A2, G4/G2, ...), each row a machine type: `Machine type`
(a3-megagpu-8g), `GPU` (Nvidia H100), `Components` ("GPUs: 8", vCPUs, memory) and one price column per way to buy
it, each named by its header:
- `Price` on demand; `Current Spot pricing` spot;
- `DWS Flex-start price` and `DWS Calendar Mode price`: the Dynamic Workload Scheduler's, kinds of their own (a
  calendar-mode price is capacity booked ahead, kept apart like a Capacity Block, never an on-demand figure);
- `Compute Resource CUDs - 1 Year / 3 Year`: committed_use_1y/_3y; `Compute Flexible CUD - 1 Year / 3 Year`:
  flexible_cud_1y/_3y (spend-based, a savings plan).

Every price is the whole machine's, per hour, in the currency the headers name (USD); a cell of `N/A` or `-` is a
way that machine is not sold. A group's title row (`A3 Mega`, no GPU) is not a machine. A machine holding part of
one GPU (`GPUs: 1/8`, G4's fractional sizes) is left out: a listing holds whole GPUs. A price cell that cannot be
read is refused by name (machine and column) while the row's other prices land. The page prints the prices of the
region its selector shows and names none in its tables, so the region is not stated.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from pipelines.errors import ParseError, TableNotFoundError
from pipelines.gpu.readers.refusals import RowRefused, first_refused, gpu_offer
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer
from pipelines.reading.tables import Column, HeaderTable, Row, locate, shape_fingerprint, soup_of
from pipelines.reading.values import is_empty, parse_money, parse_period
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_gcp_pricing_page/1.0"
PROVIDER = "Google Cloud"  # unless the source names its own (`options.provider`)

KIND_COLUMNS = (
    Column(GpuPriceKind.ON_DEMAND.value, (r"^price\b",)),
    Column(GpuPriceKind.SPOT.value, (r"\bspot\b",), required=False),
    Column(GpuPriceKind.DWS_FLEX_START.value, (r"flex-?\s?start",), required=False),
    Column(GpuPriceKind.DWS_CALENDAR.value, (r"\bcalendar\b",), required=False),
    Column(GpuPriceKind.COMMITTED_USE_1Y.value, (r"resource cuds?\b.*\b1\s*year",), required=False),
    Column(GpuPriceKind.COMMITTED_USE_3Y.value, (r"resource cuds?\b.*\b3\s*year",), required=False),
    Column(GpuPriceKind.FLEXIBLE_CUD_1Y.value, (r"flexible cuds?\b.*\b1\s*year",), required=False),
    Column(GpuPriceKind.FLEXIBLE_CUD_3Y.value, (r"flexible cuds?\b.*\b3\s*year",), required=False),
)
COLUMNS = (
    Column("machine", (r"^machine type",)),
    Column("gpu", (r"^gpus?$", r"^gpu model")),
    Column("components", (r"^components",)),
    *KIND_COLUMNS,
)
GPU_COUNT = re.compile(r"\bGPUs?\s*:\s*(?P<count>\d+)(?:\s*/\s*(?P<part>\d+))?", re.IGNORECASE)
CURRENCY = re.compile(r"\(([A-Z]{3})\)")


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GpuRows:
    soup = soup_of(body, charset)
    offers: list[GpuOffer] = []
    refused: list[str] = []
    shapes: list[str] = []
    unread: list[ParseError] = []
    for element in soup.find_all("table"):
        try:
            table = locate(BeautifulSoup(str(element), "lxml"), COLUMNS, source.id)
        except ParseError as exc:  # another kind of table (the page has others), or one whose columns moved
            unread.append(exc)
            continue
        shapes.append(table.fingerprint)
        for row in table.rows("machine"):
            read, why = _row_offers(row, table, source)
            offers += read
            refused += why
    if not shapes:  # the closest table's missing columns say more than "none found"
        raise next((e for e in unread if not isinstance(e, TableNotFoundError)), None) or ParseError(
            source.id, "no table of machine types with a GPU, its components and a price"
        )
    if not offers:
        raise ParseError(source.id, "no machine type with whole GPUs priced" + first_refused(refused))
    return GpuRows(offers=offers, refused=refused, shape=shape_fingerprint(shapes))


def _row_offers(row: Row, table: HeaderTable, source: SourceSpec) -> tuple[list[GpuOffer], list[str]]:
    """A machine's offer in each way it is sold, and the price cells refused; nothing for a group's title row."""
    machine, gpu = row.get("machine") or "", row.get("gpu") or ""
    if not machine or is_empty(gpu):
        return [], []
    count = GPU_COUNT.search(row.get("components") or "")
    if count is None:
        return [], [f"{machine}: its components name no GPU count"]
    if count["part"] is not None:
        return [], []  # part of one GPU
    offers, refused = [], []
    for column in (c for c in KIND_COLUMNS if c.key in table.columns):
        header, cell = table.header_of(column.key), row.get(column.key)
        stated = CURRENCY.search(header)  # "Price (USD)"
        currency = str(source.options.get("currency") or (stated[1] if stated else ""))
        try:
            if not currency:
                raise ValueError("no currency stated in its header or the sources file")
            amount = parse_money(cell, currency)
            if amount is None:
                continue
            offers.append(
                gpu_offer(
                    listing=machine,
                    gpu_name=gpu,
                    gpu_count=int(count["count"]),
                    price_kind=GpuPriceKind(column.key),
                    amount=amount,
                    currency=currency,
                    price_per=PricePer.INSTANCE,
                    period=BillingPeriod(parse_period(cell or "", header)),
                )
            )
        except (RowRefused, ValueError) as why:  # a record refused, or a cell parse_money cannot read
            refused.append(f"{machine}, {column.key} ({cell!r}): {why}")
    return offers, refused
