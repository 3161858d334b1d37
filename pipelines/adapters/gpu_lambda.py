"""Lambda pricing page (lambda.ai/pricing): price tables inside `role="tabpanel"` panels, one per price kind.

A panel is named by the tab button its `aria-labelledby` points at (else a heading inside it, else its
`aria-label`): "On-Demand" -> on_demand, "Reserved" -> reserved. Each row's first cell is a `<th>` with the
plan (`8x NVIDIA H100 SXM`), the others `<td data-label=...>`; plans are grouped 8x/4x/2x/1x, by group-header
rows or by separate tables. Prices are USD per GPU per hour (`$2.99 / GPU / hr`), excluding tax, no region.
A row is sold out when its text (price cell, badge) or an ARIA label in it says "sold out" (class names are
never read: a restyle renames them), in stock when it offers an enabled "Launch", otherwise unknown (reserved
rows lead to sales). gpu_count comes from the plan's `8x` prefix. A table of a price tab whose columns are not
found, beside one that is read, is refused by name (`refused`: the refresh reports it and exits 1) while the
readable table lands.
"""

from __future__ import annotations

import re
from decimal import Decimal

from bs4 import BeautifulSoup, Tag
from pydantic import ValidationError

from pipelines.errors import CellError, ParseError, TableNotFoundError
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer, StockStatus
from pipelines.reading.tables import Column, HeaderTable, Row, cell_text, locate, read_cell, soup_of
from pipelines.reading.values import clean, parse_memory, parse_money, parse_period
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_lambda/1.2"
PROVIDER = "Lambda"  # unless the source names its own (`options.provider`)

COLUMNS = [
    Column("plan", (r"^(gpus?|instance( type)?|plan|configuration)$",)),
    Column("vram", (r"vram", r"gpu memory"), required=False),
    Column("price", (r"price", r"/\s*gpu\s*/\s*(hr|hour)")),
]
KINDS = ((r"on[\s-]?demand", GpuPriceKind.ON_DEMAND), (r"reserv", GpuPriceKind.RESERVED))
PLAN = re.compile(r"^(?P<count>\d+)\s*[x×]\s+(?P<name>\S.*)$", re.IGNORECASE)
SOLD_OUT = re.compile(r"sold[\s_-]?out", re.IGNORECASE)


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GpuRows:
    soup = soup_of(body, charset)
    currency = source.options.get("currency", "USD")
    offers: list[GpuOffer] = []
    unpriced: list[str] = []
    refused: list[str] = []
    read_any = False
    for panel in soup.find_all(True, attrs={"role": "tabpanel"}):
        label = _label(soup, panel)
        tables, unread = _tables(panel, source)
        refused += [f"the {label!r} tab's {where}, not read: {exc.message}" for where, exc in unread]
        if not tables:
            continue
        kind = next((k for pattern, k in KINDS if re.search(pattern, label, re.IGNORECASE)), None)
        if kind is None:
            raise ParseError(source.id, f"price tab {label!r} is neither on-demand nor reserved")
        read_any = True
        for table, trs in tables:
            for row in table.rows("plan"):
                if not row.get("plan"):
                    raise CellError(source.id, row.label, table.header_of("plan"), "empty plan cell")
                amount = read_cell(row, table, "price", source.id, lambda t: parse_money(t, currency))
                if amount is None:
                    unpriced.append(row.label)
                    continue
                offers.append(_offer(row, table, trs.get(row.label), kind, amount, currency, source))
    if not read_any:
        raise TableNotFoundError(source.id, "tab panels (role=tabpanel) holding a plan/price table")
    keys = [(o.price_kind.value, o.listing) for o in offers]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        raise ParseError(source.id, f"plan(s) listed twice under one price kind: {duplicates}")
    return GpuRows(
        offers=offers,
        unpriced=unpriced,
        refused=refused,
    )


def _label(soup: BeautifulSoup, panel: Tag) -> str:
    ids = str(panel.get("aria-labelledby") or "").split()
    names = [cell_text(tab) for i in ids if (tab := soup.find(id=i)) is not None]
    heading = panel.find(["h1", "h2", "h3", "h4", "h5", "h6"])
    return " ".join(names) or (cell_text(heading) if heading else "") or clean(str(panel.get("aria-label") or ""))


def _tables(
    panel: Tag, source: SourceSpec
) -> tuple[list[tuple[HeaderTable, dict[str, Tag]]], list[tuple[str, ParseError]]]:
    """Every plan/price table in the panel, each with its body rows by plan (for stock markers); and, when one
    was read, every other table of the panel with why it was not (a panel of no price table at all is no price
    tab: nothing to name)."""
    found, errors = [], []
    elements = panel.find_all("table")
    for number, element in enumerate(elements, start=1):
        alone = BeautifulSoup(str(element), "lxml")  # one table at a time: a panel may hold one per group
        _name_blank_headers(alone)
        try:
            table = locate(alone, COLUMNS, source.id)
        except ParseError as exc:
            errors.append((f"table {number} of {len(elements)}", exc))
            continue
        trs: dict[str, Tag] = {}
        for tr in alone.find_all("tr"):
            for cell in tr.find_all(["th", "td"], recursive=False):
                trs.setdefault(cell_text(cell), tr)
        found.append((table, trs))
    if not found and any(not isinstance(e, TableNotFoundError) for _, e in errors):
        raise next(e for _, e in errors if not isinstance(e, TableNotFoundError))
    return found, errors if found else []


def _name_blank_headers(table: BeautifulSoup) -> None:
    """A header cell left blank is named by what its column's cells say they are (`data-label="Plan"`), as the page
    tells a screen reader; a column whose cells say nothing stays unnamed."""
    rows = [tr.find_all(["th", "td"], recursive=False) for tr in table.find_all("tr")]
    if len(rows) < 2:
        return
    for index, header in enumerate(rows[0]):
        labels = {str(row[index].get("data-label") or "").strip() for row in rows[1:] if index < len(row)}
        if not clean(header.get_text(" ")) and len(labels) == 1 and (label := labels.pop()):
            header.string = label


def _stock(tr: Tag | None, price_text: str) -> StockStatus:
    if SOLD_OUT.search(price_text):
        return StockStatus.SOLD_OUT
    if tr is None:
        return StockStatus.UNKNOWN
    labels = [str(tag.get("aria-label") or "") for tag in [tr, *tr.find_all(True)]]
    if SOLD_OUT.search(tr.get_text(" ")) or any(SOLD_OUT.search(label) for label in labels):
        return StockStatus.SOLD_OUT
    buttons = [
        b
        for b in tr.find_all(["a", "button"])
        if b.get("disabled") is None and str(b.get("aria-disabled") or "").lower() != "true"
    ]
    if any(re.fullmatch(r"launch( instance)?", clean(b.get_text(" ")), re.IGNORECASE) for b in buttons):
        return StockStatus.IN_STOCK
    return StockStatus.UNKNOWN


def _offer(
    row: Row, table: HeaderTable, tr: Tag | None, kind: GpuPriceKind, amount: Decimal, currency: str, source: SourceSpec
) -> GpuOffer:
    price_text = row.get("price") or ""
    match = PLAN.match(row.label)
    if match is None or not 1 <= int(match.group("count")) <= 1024:
        raise CellError(source.id, row.label, table.header_of("plan"), "plan does not start with a GPU count (8x)")
    if amount <= 0:
        raise CellError(source.id, row.label, table.header_of("price"), f"price {amount} is not positive")
    memory = read_cell(row, table, "vram", source.id, parse_memory) if "vram" in table.columns else None
    if memory is not None and (memory[1] not in ("GB", "GiB") or memory[0] <= 0):
        raise CellError(source.id, row.label, table.header_of("vram"), f"unreadable GPU memory {memory}")
    period = BillingPeriod(parse_period(price_text, table.header_of("price")))
    try:
        return GpuOffer(
            listing=row.label,
            gpu_name=match.group("name").strip(),
            gpu_count=int(match.group("count")),
            price_kind=kind,
            amount=amount,
            currency=currency,
            price_per=PricePer.GPU,
            period=period,
            stock_status=_stock(tr, price_text),
            region=None,
            gpu_memory_gb_printed=memory[0] if memory else None,
            gpu_memory_unit=memory[1] if memory else "GB",
        )
    except ValidationError as exc:
        raise CellError(source.id, row.label, table.header_of("price"), f"not a valid offer: {exc}") from exc
