"""LeaderGPU server list: the XHR endpoint `filter_servers?filterExpression=...` behind leadergpu.com's catalogue.

It answers JSON, `{"matchesHtml": "<section ...>...</section>...", "count": 4, ...}`: HTML inside JSON. Each
server card carries a title `8 pcs NVIDIA H100`, a spec list (GPU memory `80 GB`, CPU, RAM, disk), prices for
the WHOLE server per minute / day / week / month (`€ 0.29 / minute`, `€ 2,650.00 / week`) and either a "Rent"
button or an "Out of stock" label.

Cards and fields are found by what they say, never by class names or nesting (pipelines/reading/cards.py):
the title reads `N pcs <GPU>` or `Nx <GPU>`, a price reads as a money amount and a period in either order, GPU
memory is the text labelled "GPU memory". Each (card, period) is its own listing, `"8 pcs NVIDIA H100 / day"`,
in the currency the page prints. A card with no price ("Price on request") is reported in `unpriced`, never
landed; a price in no card (a card whose title no longer reads as one) refuses the page. The batch's shape is a
fingerprint of the labels recognised (title form, periods, memory label, stock phrases), for drift detection.
"""

from __future__ import annotations

import re
from decimal import Decimal

from bs4 import BeautifulSoup
from pydantic import ValidationError

from pipelines.errors import CellError, ParseError
from pipelines.gpu.catalog import canonical
from pipelines.reading.cards import Card, labelled_value, printed_currencies, read_cards, stock_of
from pipelines.reading.json_body import load_json
from pipelines.reading.tables import shape_fingerprint
from pipelines.reading.values import parse_memory, parse_money
from pipelines.sources.file import SourceSpec
from schemas.gpu import BillingPeriod, GpuBatch, GpuOffer, GpuPriceKind, PricePer, StockStatus

PARSER_VERSION = "gpu_leadergpu/2.0"

DEFAULT_CURRENCY = "EUR"  # for an amount printed without a currency mark
HTML_KEY = "matchesHtml"

# Per minute and per day are pay-as-you-go: billed as used, stop at any time, no commitment, so they are the
# on-demand rates. Per week and per month are prepaid terms: the whole week or month is paid up front for a
# discount, a commitment to the term, which is what `reserved` means here. (Per hour, if it appears, is
# pay-as-you-go too.)
PERIOD_KIND = {
    BillingPeriod.MINUTE: GpuPriceKind.ON_DEMAND,
    BillingPeriod.HOUR: GpuPriceKind.ON_DEMAND,
    BillingPeriod.DAY: GpuPriceKind.ON_DEMAND,
    BillingPeriod.WEEK: GpuPriceKind.RESERVED,
    BillingPeriod.MONTH: GpuPriceKind.RESERVED,
}
PERIOD_ORDER = list(BillingPeriod)

# `8 pcs NVIDIA H100` (also `8 pcs. ...`, `1 pc ...`), `8x NVIDIA H100`, `8 × H100`.
_TITLE = re.compile(r"(?P<count>[0-9]+)\s*(?P<form>pcs?\.?(?=\s)|[x×])\s*(?P<name>\S.*)", re.IGNORECASE)
# The `Nx` form also reads CPU and disk lines (`2 x Intel Xeon Gold`, `8 x 3.84 TB NVMe`): there the name must
# say it is a GPU, by vendor word or by a model the catalogue knows.
_GPU_WORD = re.compile(r"\b(?:nvidia|tesla|geforce|quadro|radeon|instinct|amd\s+mi\d+|mi\d{3}x?)\b", re.IGNORECASE)
_MEMORY_LABEL = re.compile(r"\b(?:gpu|video)\s*memory\b|\bvram\b", re.IGNORECASE)


def parse(body: bytes, source: SourceSpec) -> GpuBatch:
    html = _matches_html(body, source.id)
    try:
        soup = BeautifulSoup(html, "lxml")
    except (ValueError, UnicodeError) as exc:  # lone surrogates and the like, which lxml refuses
        raise ParseError(source.id, f"{HTML_KEY} is not readable HTML: {exc}") from exc
    page = read_cards(soup, _is_title)
    if page.stray_prices:
        raise ParseError(
            source.id,
            f"price(s) {page.stray_prices[:3]} sit in no server card: a card whose title"
            " does not read 'N pcs <GPU>' or 'Nx <GPU>'?",
        )
    labels: set[str] = set()
    offers: list[GpuOffer] = []
    unpriced: list[str] = []
    seen: set[str] = set()
    default_currency = source.options.get("currency", DEFAULT_CURRENCY)
    for card in page.cards:
        card_offers = _card(card, default_currency, source.id, labels)
        if not card_offers:
            unpriced.append(card.title)
        for offer in card_offers:
            if offer.listing in seen:
                raise ParseError(source.id, f"listing {offer.listing!r} appears twice; listings must be unique")
            seen.add(offer.listing)
            offers.append(offer)
    if not offers:
        raise ParseError(
            source.id,
            f"no server cards with a price in {HTML_KEY} (titles found: {[card.title for card in page.cards][:5]})",
        )
    provider = source.options.get("provider", "LeaderGPU")
    return GpuBatch(
        source_id=source.id,
        parser_version=PARSER_VERSION,
        provider=provider,
        offers=offers,
        unpriced=unpriced,
        shape=shape_fingerprint(sorted(labels)),
    )


def _matches_html(body: bytes, source_id: str) -> str:
    data = load_json(body, source_id)
    if not isinstance(data, dict):
        raise ParseError(source_id, f"expected a JSON object with key {HTML_KEY!r}, got {type(data).__name__}")
    if HTML_KEY not in data:
        raise ParseError(source_id, f"JSON key {HTML_KEY!r} missing; keys are {sorted(data)[:20]}")
    html = data[HTML_KEY]
    if not isinstance(html, str):
        raise ParseError(source_id, f"JSON key {HTML_KEY!r} is a {type(html).__name__}, not an HTML string")
    return html


def _is_title(text: str) -> bool:
    match = _TITLE.fullmatch(text)
    if match is None:
        return False
    name = match.group("name")
    return match.group("form").lower().startswith("pc") or bool(_GPU_WORD.search(name)) or canonical(name) is not None


def _title_form(form: str) -> str:
    return "pcs" if form.lower().startswith("pc") else "x"


def _card(card: Card, default_currency: str, source_id: str, labels: set[str]) -> list[GpuOffer]:
    """The card's offers, one per period priced; the labels it was read by are added to `labels`."""
    title = card.title
    match = _TITLE.fullmatch(title)
    assert match is not None  # cards are found by their titles
    count = int(match.group("count"))
    gpu_name = match.group("name").strip()
    if not 1 <= count <= 1024:
        raise CellError(source_id, title, "title", f"GPU count {count} is not between 1 and 1024")
    labels.add(f"title:{_title_form(match.group('form'))}")
    memory = _memory(card, source_id, labels)
    stock, phrase = stock_of(card.element)
    if phrase:
        labels.add(f"stock:{phrase}")

    prices: dict[BillingPeriod, tuple[Decimal, str]] = {}
    for price in card.prices:
        column = f"price per {price.period.value}"
        amount, currency = _money(price.amount, default_currency, title, column, source_id)
        if amount is None:
            continue
        if price.period in prices and prices[price.period] != (amount, currency):
            raise CellError(source_id, title, column, f"two different prices ({prices[price.period][0]} and {amount})")
        others = {other for _, other in prices.values()} - {currency}
        if others:  # one server, one price list: a second currency is a misread, not a second offer
            raise CellError(
                source_id,
                title,
                column,
                f"{price.text!r} is in {currency}, the card's other prices in {sorted(others)[0]}",
            )
        prices[price.period] = (amount, currency)
        labels.add(f"period:{price.period.value}")
    return [
        _offer(title, gpu_name, count, period, *prices[period], stock, memory, source_id)
        for period in sorted(prices, key=PERIOD_ORDER.index)
    ]


def _money(printed: str, default_currency: str, title: str, column: str, source_id: str) -> tuple[Decimal | None, str]:
    """A positive amount and the currency it is printed in (the source's currency when none is printed)."""
    if "-" in printed:
        raise CellError(source_id, title, column, f"negative price {printed!r}")
    marks = printed_currencies(printed)
    if len(marks) > 1:
        raise CellError(source_id, title, column, f"{printed!r} names more than one currency")
    currency = marks.pop() if marks else default_currency
    try:
        amount = parse_money(printed, currency)
    except ValueError as exc:
        raise CellError(source_id, title, column, str(exc)) from exc
    if amount is not None and (not amount.is_finite() or amount <= 0):
        raise CellError(source_id, title, column, f"{printed!r} is not a positive price")
    return amount, currency


def _offer(
    title: str,
    gpu_name: str,
    count: int,
    period: BillingPeriod,
    amount: Decimal,
    currency: str,
    stock: StockStatus,
    memory: tuple[Decimal, str] | None,
    source_id: str,
) -> GpuOffer:
    try:
        return GpuOffer(
            listing=f"{title} / {period.value}",
            gpu_name=gpu_name,
            gpu_count=count,
            price_kind=PERIOD_KIND[period],
            amount=amount,
            currency=currency,
            price_per=PricePer.INSTANCE,
            period=period,
            stock_status=stock,
            region=None,
            gpu_memory_gb_printed=memory[0] if memory else None,
            gpu_memory_unit=memory[1] if memory else "GB",
        )
    except ValidationError as exc:
        raise CellError(source_id, title, f"price per {period.value}", f"not a valid offer: {exc}") from exc


def _memory(card: Card, source_id: str, labels: set[str]) -> tuple[Decimal, str] | None:
    """VRAM per GPU with its unit, from the smallest element holding the "GPU memory" label and a figure after it."""
    found = labelled_value(card.element, _MEMORY_LABEL)
    if found is None:
        return None
    label, printed = found
    labels.add(f"memory:{label}")
    try:
        memory = parse_memory(printed)
    except ValueError as exc:
        raise CellError(source_id, card.title, "GPU memory", str(exc)) from exc
    if memory is None or memory[1] not in ("GB", "GiB") or memory[0] <= 0:
        return None  # printed in a unit this field does not record; the name and count still stand
    return memory
