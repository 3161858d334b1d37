"""LeaderGPU server list: the XHR endpoint `filter_servers?filterExpression=...` behind leadergpu.com's catalogue.

It answers JSON, `{"matchesHtml": "<section class=\\"b-product-gpu\\">...</section>...", "count": 4, ...}`: HTML
inside JSON. Each `<section class="b-product-gpu">` is one server card: a title `8 pcs NVIDIA H100`, a spec
list (GPU memory `80 GB`, CPU, RAM, disk), a price block with EUR prices for the WHOLE server per minute / day /
week / month (`€ 0.29 / minute`, `€ 2,650.00 / week`) and either a "Rent" button or an "Out of stock" label.

Fields are found by what they say, not where they sit: the title is the text reading `N pcs <GPU>`, a price is
any text reading `<money> / <period>`, GPU memory is the text labelled "GPU memory". Blocks may be reordered or
restyled. Each (card, period) is its own listing, `"8 pcs NVIDIA H100 / day"`. A card with no price at all
("Price on request") is reported in `unpriced`, never landed as a price.
"""

from __future__ import annotations

import re
from decimal import Decimal

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import CData
from pydantic import ValidationError

from pipelines.adapters.json_body import load_json
from pipelines.errors import CellError, ParseError
from pipelines.sources import SourceSpec
from pipelines.values import clean, parse_memory, parse_money
from schemas.gpu import BillingPeriod, GpuBatch, GpuOffer, GpuPriceKind, PricePer, StockStatus

PARSER_VERSION = "gpu_leadergpu/1.0"

CURRENCY = "EUR"
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
PERIOD_WORDS = {
    "minute": BillingPeriod.MINUTE, "min": BillingPeriod.MINUTE,
    "hour": BillingPeriod.HOUR, "hr": BillingPeriod.HOUR,
    "day": BillingPeriod.DAY,
    "week": BillingPeriod.WEEK,
    "month": BillingPeriod.MONTH, "mo": BillingPeriod.MONTH,
}

# `8 pcs NVIDIA H100` (also `8 pcs. ...`, `1 pc ...`).
_TITLE = re.compile(r"(?P<count>[0-9]+)\s*pcs?\.?\s+(?P<name>\S.*)", re.IGNORECASE)
# `€ 0.29 / minute`, `€ 2,650.00 per week`: an amount (no slash in it; not a `-15%` discount badge) then the
# period it is for.
_PRICE = re.compile(
    r"(?P<amount>[^/%]*?[0-9][^/%]*?)\s*(?:/|\bper\b)\s*(?:1\s+)?(?P<period>minute|min|hour|hr|day|week|month|mo)s?\.?",
    re.IGNORECASE,
)
_MEMORY_LABEL = re.compile(r"\b(?:gpu|video)\s*memory\b|\bvram\b", re.IGNORECASE)
_SOLD_OUT = re.compile(r"\bout of stock\b|\bsold out\b", re.IGNORECASE)
_RENT = re.compile(r"(?:rent|order)(?:\s+(?:now|server|it))?", re.IGNORECASE)
_CARD_CLASS = re.compile(r"^b-product-gpu$")
_FALLBACK_CARD_CLASS = re.compile(r"^(?!.*__)(?:b-)?(?:product|server)[-_]?(?:gpu|card|item)$")
_HEADING = {"h1", "h2", "h3", "h4", "h5", "h6"}
# Struck-through old prices, scripts and templates carry text that is not this card's current offer.
_NOT_CONTENT = ["script", "style", "template", "noscript", "del", "s", "strike"]


def parse(body: bytes, source: SourceSpec) -> GpuBatch:
    html = _matches_html(body, source.id)
    try:
        soup = BeautifulSoup(html, "lxml")
    except (ValueError, UnicodeError) as exc:  # lone surrogates and the like, which lxml refuses
        raise ParseError(source.id, f"{HTML_KEY} is not readable HTML: {exc}") from exc
    cards = _cards(soup)
    if not cards:
        raise ParseError(source.id, f"no server cards (section.b-product-gpu) in {HTML_KEY}")

    offers: list[GpuOffer] = []
    unpriced: list[str] = []
    seen: set[str] = set()
    for number, card in enumerate(cards, start=1):
        card_offers, title = _card(card, number, source.id)
        if not card_offers:
            unpriced.append(title)
        for offer in card_offers:
            if offer.listing in seen:
                raise ParseError(source.id, f"listing {offer.listing!r} appears twice; listings must be unique")
            seen.add(offer.listing)
            offers.append(offer)
    provider = source.options.get("provider", "LeaderGPU")
    return GpuBatch(
        source_id=source.id, parser_version=PARSER_VERSION, provider=provider, offers=offers, unpriced=unpriced
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


def _cards(soup: BeautifulSoup) -> list[Tag]:
    cards = soup.find_all(class_=_CARD_CLASS)
    if not cards:
        cards = soup.find_all(class_=_FALLBACK_CARD_CLASS)
    # The outermost card only, should a restyle nest one card class inside another.
    return [c for c in cards if not any(p in cards for p in c.parents)]


def _text(element: Tag | NavigableString) -> str:
    if isinstance(element, NavigableString):
        return clean(str(element))
    return clean(element.get_text(" ", strip=True))


def _innermost(card: Tag, pattern: re.Pattern[str]) -> list[tuple[str, Tag | NavigableString]]:
    """Texts in the card that read as `pattern` in full, each from the smallest element (or bare string) saying it."""
    elements = [card, *card.find_all(True)]
    texts = {id(e): _text(e) for e in elements}
    matching = {id(e) for e in elements if pattern.fullmatch(texts[id(e)])}
    found: list[tuple[str, Tag | NavigableString]] = []
    for element in elements:
        if id(element) in matching and not any(id(d) in matching for d in element.find_all(True)):
            found.append((texts[id(element)], element))
    # Bare strings sharing one element with others (`€ 0.29 / minute<br>€ 7.50 / day`).
    for string in card.find_all(string=True):
        if type(string) not in (NavigableString, CData):
            continue  # comments, doctype, processing instructions
        if any(id(p) in matching for p in string.parents):
            continue
        text = _text(string)
        if pattern.fullmatch(text):
            found.append((text, string))
    return found


def _card(card: Tag, number: int, source_id: str) -> tuple[list[GpuOffer], str]:
    for tag in card.find_all(_NOT_CONTENT):
        tag.decompose()
    title = _title(card, number, source_id)
    match = _TITLE.fullmatch(title)
    assert match is not None  # _title only returns texts that read as a title
    count = int(match.group("count"))
    gpu_name = match.group("name").strip()
    if not 1 <= count <= 1024:
        raise CellError(source_id, title, "title", f"GPU count {count} is not between 1 and 1024")
    memory = _memory(card, title, source_id)
    stock = _stock(card)

    prices: dict[BillingPeriod, Decimal] = {}
    for text, _ in _innermost(card, _PRICE):
        price = _PRICE.fullmatch(text)
        assert price is not None
        period = PERIOD_WORDS[price.group("period").lower()]
        column = f"price per {period.value}"
        amount_text = price.group("amount")
        if re.search(r"-\s*[0-9]", amount_text):
            raise CellError(source_id, title, column, f"negative price {text!r}")
        try:
            amount = parse_money(amount_text, CURRENCY)
        except ValueError as exc:
            raise CellError(source_id, title, column, str(exc)) from exc
        if amount is None:
            continue
        if not amount.is_finite() or amount <= 0:
            raise CellError(source_id, title, column, f"{text!r} is not a positive price")
        if period in prices and prices[period] != amount:
            raise CellError(source_id, title, column, f"two different prices ({prices[period]} and {amount})")
        prices[period] = amount

    offers = []
    for period in sorted(prices, key=PERIOD_ORDER.index):
        listing = f"{title} / {period.value}"
        try:
            offers.append(
                GpuOffer(
                    listing=listing,
                    gpu_name=gpu_name,
                    gpu_count=count,
                    price_kind=PERIOD_KIND[period],
                    amount=prices[period],
                    currency=CURRENCY,
                    price_per=PricePer.INSTANCE,
                    period=period,
                    stock_status=stock,
                    region=None,
                    gpu_memory_gb_printed=memory,
                )
            )
        except ValidationError as exc:
            raise CellError(source_id, title, f"price per {period.value}", f"not a valid offer: {exc}") from exc
    return offers, title


def _title(card: Tag, number: int, source_id: str) -> str:
    candidates = _innermost(card, _TITLE)
    if not candidates:
        raise ParseError(source_id, f"server card {number} has no title reading 'N pcs <GPU>'")
    titled = [text for text, element in candidates if _is_title(element, card)]
    return (titled or [text for text, _ in candidates])[0]


def _is_title(element: Tag | NavigableString, card: Tag) -> bool:
    node: Tag | None = element if isinstance(element, Tag) else element.parent
    while node is not None and node is not card:
        classes = " ".join(node.get("class") or [])
        if node.name in _HEADING or re.search(r"title|name", classes, re.IGNORECASE):
            return True
        node = node.parent
    return False


def _memory(card: Tag, title: str, source_id: str) -> Decimal | None:
    """VRAM per GPU, from the smallest element holding both the "GPU memory" label and a figure after it."""
    best: str | None = None
    best_length = 0
    for element in card.find_all(True):
        text = _text(element)
        label = _MEMORY_LABEL.search(text)
        if label is None:
            continue
        after = text[label.end():]
        if re.search(r"[0-9]", after) and (best is None or len(text) < best_length):
            best, best_length = after, len(text)
    if best is None:
        return None
    try:
        memory = parse_memory(best)
    except ValueError as exc:
        raise CellError(source_id, title, "GPU memory", str(exc)) from exc
    if memory is None or memory[1] not in ("GB", "GiB") or memory[0] <= 0:
        return None  # printed in a unit this field does not record; the name and count still stand
    return memory[0]


def _stock(card: Tag) -> StockStatus:
    if _SOLD_OUT.search(_text(card)):
        return StockStatus.SOLD_OUT
    for control in card.find_all(["a", "button", "input"]):
        label = _text(control) or clean(str(control.get("value") or ""))
        if _RENT.fullmatch(label):
            return StockStatus.IN_STOCK
    return StockStatus.UNKNOWN
