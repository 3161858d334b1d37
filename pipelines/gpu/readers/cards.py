"""Product cards found by what their text says, never by class names or fixed nesting.

Providers restyle card pages far more often than they change what a card says, so a card is defined by
meaning: the largest element around a title text (`8 pcs NVIDIA H100`) that names nothing else. A card may
name its item again in other words (`GPU: 4 pcs NVIDIA A10` under `4x NVIDIA A10`): the caller's key says which
names are the same, and a card keeps every name it holds (`Card.mentions`) so the caller can refuse one naming
two things. A title that stands alone in a flat layout (heading, then its specs and prices as siblings) takes
the siblings up to the next card's title (pipelines/gpu/readers/card_titles.py). Inside a card:
- a price is the smallest text reading as a money amount and a billing period, in either order
  (`€ 0.29 / minute`, `€ 7.50 per day`, `per day € 7.50`, `Daily: €7.50`, `monthly €210`), even when amount and
  period sit in sibling elements or in a table cell and its column header;
- a labelled value (GPU memory) is the smallest text holding the label and a figure after it;
- availability is a sold-out phrase, an in-stock phrase, or a Rent/Order control.
Prices outside every card are reported as strays, so the caller can refuse a card it could not title, unless
they are words in a sentence (a promotion: "Save <b>€ 50 / month</b> on annual plans"), which are ignored.
HTML tag semantics (table cells and headers, buttons) are used; class names never are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from bs4 import BeautifulSoup, Tag

from pipelines.gpu.readers.card_titles import (
    CardUnits,
    Mention,
    Node,
    is_content,
    mention_at,
    named_in,
    text_of,
    title_first,
)
from pipelines.gpu.records import BillingPeriod, StockStatus
from pipelines.reading.values import CURRENCY_MARKS, clean

# Struck-through old prices, scripts and templates carry text that is not a card's current offer.
NOT_CONTENT = ["script", "style", "template", "noscript", "del", "s", "strike"]

_CURRENCY = r"(?:US\$|[€$£]|\b(?:EUR|USD|GBP|CHF|SEK|NOK|DKK|PLN|CZK|CAD|AUD|JPY)\b)"
# An amount with its currency as printed, before or after; a minus sign anywhere is kept so it can be refused.
_MONEY = rf"(?P<amount>(?:-\s*)?(?:{_CURRENCY}\s*)?(?:-\s*)?\d[\d,.]*(?:\s*{_CURRENCY})?)"
_UNIT = r"(?i:minute|min|hour|hr|h|day|week|wk|month|mo)"
_ADVERB = r"(?i:hourly|daily|weekly|monthly)"
_WORD = r"(?i:minute|hour|day|week|month)"
_PRICE_FORMS = (
    # `€ 0.29 / minute`, `€ 7.50 per day`, `€ 7.50 a day`, `€ 210 monthly`
    re.compile(rf"{_MONEY}\s*(?:(?:/|(?i:per|an?)\b)\s*(?:1\s+)?(?P<unit>{_UNIT})s?\.?|(?P<adverb>{_ADVERB}))"),
    # `per day € 7.50`, `/ day € 7.50`, `Daily: €7.50`, `monthly €210`, `Day: € 7.50`
    re.compile(
        rf"(?:(?:/|(?i:per)\b)\s*(?P<unit>{_UNIT})s?\.?|(?P<adverb>{_ADVERB})|(?P<word>{_WORD})s?)"
        rf"\s*:?\s*{_MONEY}"
    ),
)
_PERIODS = {
    "minute": BillingPeriod.MINUTE,
    "min": BillingPeriod.MINUTE,
    "hour": BillingPeriod.HOUR,
    "hr": BillingPeriod.HOUR,
    "h": BillingPeriod.HOUR,
    "hourly": BillingPeriod.HOUR,
    "day": BillingPeriod.DAY,
    "daily": BillingPeriod.DAY,
    "week": BillingPeriod.WEEK,
    "wk": BillingPeriod.WEEK,
    "weekly": BillingPeriod.WEEK,
    "month": BillingPeriod.MONTH,
    "mo": BillingPeriod.MONTH,
    "monthly": BillingPeriod.MONTH,
}
# Tags that continue a line of text; any other tag (and `br`) ends it.
_INLINE = {
    "a",
    "abbr",
    "b",
    "bdi",
    "bdo",
    "cite",
    "code",
    "data",
    "dfn",
    "em",
    "font",
    "i",
    "kbd",
    "label",
    "mark",
    "q",
    "small",
    "span",
    "strong",
    "sub",
    "sup",
    "time",
    "u",
    "var",
}
_SOLD_OUT = re.compile(r"\bout of stock\b|\bsold out\b|\bunavailable\b|\bnot available\b", re.IGNORECASE)
_IN_STOCK = re.compile(r"in stock|available(?: now)?", re.IGNORECASE)
_CONTROL = re.compile(r"(?P<verb>rent|order)(?:\s+(?:now|server|it))?", re.IGNORECASE)


@dataclass(frozen=True)
class PriceText:
    text: str
    amount: str  # as printed, currency mark included
    period: BillingPeriod


@dataclass
class Card:
    title: str
    element: Tag
    prices: list[PriceText] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)  # every name the card gives, its title's first


@dataclass
class CardPage:
    cards: list[Card]
    stray_prices: list[str]  # price texts that sit in no card


def read_price(text: str) -> PriceText | None:
    """The amount and period a text states in full, or None."""
    for form in _PRICE_FORMS:
        match = form.fullmatch(text)
        if match:
            word = (match.group("unit") or match.group("adverb") or match.groupdict().get("word") or "").lower()
            return PriceText(text, match.group("amount").strip(), _PERIODS[word])
    return None


def printed_currencies(amount: str) -> set[str]:
    """The ISO codes of the currency marks an amount prints (`€ 7.50` -> {'EUR'}); none printed, none returned."""
    return {CURRENCY_MARKS.get(mark, mark) for mark in re.findall(_CURRENCY, amount)}


def innermost(root: Tag, reads_as: Callable[[str], bool]) -> list[tuple[str, Node]]:
    """Texts that read as wanted in full, each from the smallest element or bare string saying it, in page order."""
    nodes: list[Node] = [root, *(n for n in root.descendants if is_content(n))]
    texts = {id(n): text_of(n) for n in nodes}
    matching = [n for n in nodes if texts[id(n)] and reads_as(texts[id(n)])]
    enclosing = {id(parent) for n in matching for parent in n.parents}
    return [(texts[id(n)], n) for n in matching if id(n) not in enclosing]


def label_table_cells(root: Tag) -> None:
    """Copy each column header into the body cells below it, so `Per day` over `€ 7.50` reads as one price."""
    for table in root.find_all("table"):
        rows = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
        head = _header_row(rows)
        # Rows that already read as prices (`per day` | `€ 7.50` under `Period` | `Price`) need no labels.
        if head is None or any(read_price(text_of(tr)) for tr in rows[head + 1 :]):
            continue
        headers = _columns(rows[head])
        for tr in rows[head + 1 :]:
            column = 0
            for cell in tr.find_all(["td", "th"], recursive=False):
                header = headers[column] if column < len(headers) else ""
                if header and header.lower() not in text_of(cell).lower():
                    label = BeautifulSoup("", "html.parser").new_tag("span")
                    label.string = header
                    cell.insert(0, label)
                column += _colspan(cell)


def _header_row(rows: list[Tag]) -> int | None:
    in_head = [i for i, tr in enumerate(rows) if getattr(tr.find_parent(["thead", "table"]), "name", "") == "thead"]
    if in_head:
        return in_head[-1]
    for index, tr in enumerate(rows):
        cells = tr.find_all(["td", "th"], recursive=False)
        if len(cells) > 1 and all(c.name == "th" for c in cells):
            return index
    return None


def _colspan(cell: Tag) -> int:
    try:
        return min(max(1, int(str(cell.get("colspan", "1")).strip() or 1)), 1000)
    except ValueError:
        return 1


def _columns(tr: Tag) -> list[str]:
    headers: list[str] = []
    for cell in tr.find_all(["td", "th"], recursive=False):
        headers += [text_of(cell)] * _colspan(cell)
    return headers


def read_cards(
    root: Tag, is_title: Callable[[str], bool], key: Callable[[str], Hashable] = lambda name: name
) -> CardPage:
    """Every card on the page (one per thing titled, in page order) with its prices; prices in no card apart.

    `key` says which names are the same thing (`4x NVIDIA A10`, `4 pcs A10 24GB`); by default, the same text.
    """
    for tag in root.find_all(NOT_CONTENT):
        tag.decompose()
    # Names are read before table cells get their column headers, which would read as spec labels.
    found = innermost(root, lambda text: named_in(text, is_title) is not None)
    mentions = [mention_at(text, node, is_title, key) for text, node in found]
    label_table_cells(root)
    prices = innermost(root, lambda text: read_price(text) is not None)
    units = CardUnits(root, mentions, [node for _, node in prices if not _in_prose(node)])
    cards: list[Card] = []
    by_element: dict[int, Card] = {}
    for mention in mentions:
        card = _card_around(mention.node, by_element)
        if card is None:
            element = units.card_element(mention)
            card = by_element.get(id(element)) or Card(mention.text, element)
            if id(element) not in by_element:
                by_element[id(element)] = card
                cards.append(card)
        card.mentions.append(mention)
    for card in cards:
        card.mentions = title_first(card.mentions)
        card.title = card.mentions[0].text
    strays = []
    for text, node in prices:
        card = _card_around(node, by_element)
        price = read_price(text)
        assert price is not None  # innermost kept only texts that read as a price
        if card is not None:
            card.prices.append(price)
        elif not _in_prose(node):  # in a sentence it is a promotion ("Save <b>€ 50 / month</b> on ..."): ignored
            strays.append(text)
    return CardPage(cards, strays)


def _card_around(node: Node, by_element: dict[int, Card]) -> Card | None:
    return next((by_element[id(e)] for e in [node, *node.parents] if id(e) in by_element), None)


def _in_prose(node: Node) -> bool:
    """Whether words run on either side of the node within its line (up to a block boundary or line break)."""
    current: Node | None = node
    while current is not None:
        for siblings in (current.previous_siblings, current.next_siblings):
            for sibling in siblings:
                if isinstance(sibling, Tag) and sibling.name not in _INLINE:
                    break
                if is_content(sibling) and re.search(r"[^\W\d_]", text_of(sibling)):
                    return True
        parent = current.parent
        current = parent if parent is not None and parent.name in _INLINE else None  # the line goes on outside it
    return False


def stock_of(card: Tag) -> tuple[StockStatus, str | None]:
    """Availability and the phrase it was read from (lower-cased), by text and controls only."""
    sold_out = _SOLD_OUT.search(text_of(card))
    if sold_out:
        return StockStatus.SOLD_OUT, sold_out.group(0).lower()
    in_stock = innermost(card, lambda text: _IN_STOCK.fullmatch(text) is not None)
    if in_stock:
        return StockStatus.IN_STOCK, in_stock[0][0].lower()
    for control in card.find_all(["a", "button", "input"]):
        label = text_of(control) or clean(str(control.get("value") or ""))
        match = _CONTROL.fullmatch(label)
        if match:
            return StockStatus.IN_STOCK, match.group("verb").lower()
    return StockStatus.UNKNOWN, None


def labelled_value(card: Tag, label: re.Pattern[str]) -> tuple[str, str] | None:
    """(label as printed, lower-cased; the text after it) from the smallest element with the label and a figure."""
    best: tuple[str, str] | None = None
    best_length = 0
    for element in [card, *card.find_all(True)]:
        text = text_of(element)
        found = label.search(text)
        if found is None:
            continue
        after = text[found.end() :]
        if re.search(r"[0-9]", after) and (best is None or len(text) < best_length):
            best, best_length = (found.group(0).lower(), after), len(text)
    return best
