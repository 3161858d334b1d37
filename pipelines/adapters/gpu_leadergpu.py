"""LeaderGPU server list: the XHR endpoint `filter_servers?filterExpression=...` behind leadergpu.com's catalogue.

It answers JSON, `{"matchesHtml": "<section ...>...</section>...", "count": 4, ...}`: HTML inside JSON. Each
server card carries a title `8 pcs NVIDIA H100`, a spec list (GPU memory `80 GB`, CPU, RAM, disk), prices for
the WHOLE server per minute / day / week / month (`€ 0.29 / minute`, `€ 2,650.00 / week`) and either a "Rent"
button or an "Out of stock" label.

Cards and fields are found by what they say, never by class names or nesting (pipelines/gpu/readers/cards.py):
the title reads `N pcs <GPU>`, `Nx <GPU>`, `xN <GPU>` or `<GPU> xN`, a price reads as a money amount and a
period in either order, GPU memory is the text labelled "GPU memory". Each (card, period) is its own listing,
`"8 pcs NVIDIA H100 / day"`, in the currency the page prints. A card with no price ("Price on request") is
reported in `unpriced`, never landed; a price in no card (a card whose title no longer reads as one) refuses
the page. A card may name its GPU again in other words (`4x NVIDIA A10` and `GPU: 4 pcs A10 24GB`): still one
listing; a card naming two GPUs, two counts or two memory sizes is refused, never guessed. The batch's shape is
a fingerprint of the labels recognised (title form, periods, memory label, stock phrases), for drift detection.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from bs4 import BeautifulSoup
from pydantic import ValidationError

from pipelines.errors import CellError, ParseError
from pipelines.gpu.gpu_names import canonical
from pipelines.gpu.readers.cards import Card, labelled_value, printed_currencies, read_cards, stock_of
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer, StockStatus
from pipelines.reading.json_body import load_json
from pipelines.reading.tables import shape_fingerprint
from pipelines.reading.values import parse_memory, parse_money
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_leadergpu/2.1"  # 2.1: a card may name its GPU twice; xN title forms
PROVIDER = "LeaderGPU"  # unless the source names its own (`options.provider`)

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

_FOOTNOTE = r"(?:\s*[*†‡¹²³⁴⁵⁶⁷⁸⁹])*"  # `4x NVIDIA A10*`: the marker is not part of the name
# `8 pcs NVIDIA H100` (also `8 pcs. ...`, `1 pc ...`), `8x NVIDIA H100`, `8 × H100`; `×8 H100`; `H100 ×8`.
_TITLES = (
    re.compile(rf"(?P<count>[0-9]+)\s*(?P<form>pcs?\.?(?=\s)|[x×])\s*(?P<name>\S.*?){_FOOTNOTE}", re.IGNORECASE),
    re.compile(rf"(?P<form>[x×])\s*(?P<count>[0-9]+)\s+(?P<name>\S.*?){_FOOTNOTE}", re.IGNORECASE),
    re.compile(rf"(?P<name>\S.*?)\s*(?P<form>[x×])\s*(?P<count>[0-9]+){_FOOTNOTE}", re.IGNORECASE),
)
# The title forms as the shape records them: `N pcs <GPU>`, `Nx <GPU>`, `xN <GPU>`, `<GPU> xN`.
_TITLE_FORMS = ("pcs", "x", "x-before", "x-after")
# The `x` forms also read CPU and disk lines (`2 x Intel Xeon Gold`, `8 x 3.84 TB NVMe`): there the name must
# say it is a GPU, by vendor word or by a model the catalogue knows.
_GPU_WORD = re.compile(r"\b(?:nvidia|tesla|geforce|quadro|radeon|instinct|amd\s+mi\d+|mi\d{3}x?)\b", re.IGNORECASE)
_VENDOR_WORD = re.compile(r"\b(?:nvidia|tesla|geforce|quadro|amd)\b", re.IGNORECASE)
_MEMORY_IN_NAME = re.compile(r"\b([0-9]+)\s*GB\b", re.IGNORECASE)
_MEMORY_LABEL = re.compile(r"\b(?:gpu|video)\s*memory\b|\bvram\b", re.IGNORECASE)


def parse(body: bytes, source: SourceSpec) -> GpuRows:
    html = _matches_html(body, source.id)
    try:
        soup = BeautifulSoup(html, "lxml")
    except (ValueError, UnicodeError) as exc:  # lone surrogates and the like, which lxml refuses
        raise ParseError(source.id, f"{HTML_KEY} is not readable HTML: {exc}") from exc
    page = read_cards(soup, _is_title, _same_gpu)
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
    return GpuRows(
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


@dataclass(frozen=True)
class _Title:
    count: int
    name: str
    form: str  # one of _TITLE_FORMS


def _read_title(text: str) -> _Title | None:
    """Count and GPU name from a title in any of its forms, or None when the text is not one."""
    for index, pattern in enumerate(_TITLES):
        match = pattern.fullmatch(text)
        if match is None:
            continue
        counted = match.group("form").lower().startswith("pc")
        name = match.group("name").strip()
        if counted or _GPU_WORD.search(name) or canonical(name) is not None:
            return _Title(int(match.group("count")), name, "pcs" if counted else _TITLE_FORMS[index + 1])
    return None


def _is_title(text: str) -> bool:
    return _read_title(text) is not None


def _same_gpu(text: str) -> tuple[int, str] | None:
    """What a title names, so `4x NVIDIA A10` and `4 pcs A10 24GB` are one GPU: its count and model."""
    title = _read_title(text)
    if title is None:
        return None
    known = canonical(title.name)
    bare = _MEMORY_IN_NAME.sub(" ", _VENDOR_WORD.sub(" ", title.name))
    return title.count, known.model if known else " ".join(bare.upper().split())


def _refuse_conflicting_names(card: Card, source_id: str) -> None:
    """A card naming two GPUs, two counts or two memory sizes is refused: which one it sells is not known."""
    named = [(mention.text, _read_title(mention.text), mention.key) for mention in card.mentions]
    first_text, first, first_key = named[0]
    assert first is not None and isinstance(first_key, tuple)  # cards are found by their titles
    memories = {m.group(1) for text, _, _ in named for m in _MEMORY_IN_NAME.finditer(text)}
    for text, title, key in named[1:]:
        assert title is not None and isinstance(key, tuple)
        if key[1] != first_key[1]:
            detail = f"names two different GPUs, {first_text!r} and {text!r}"
        elif key[0] != first_key[0]:
            detail = f"gives conflicting GPU counts, {first.count} in {first_text!r} and {title.count} in {text!r}"
        else:
            continue
        raise CellError(source_id, card.title, "title", f"the card {detail}")
    if len(memories) > 1:
        sizes = " and ".join(f"{size} GB" for size in sorted(memories, key=int))
        raise CellError(source_id, card.title, "title", f"the card names conflicting GPU memory, {sizes}")


def _card(card: Card, default_currency: str, source_id: str, labels: set[str]) -> list[GpuOffer]:
    """The card's offers, one per period priced; the labels it was read by are added to `labels`."""
    title = card.title
    read = _read_title(title)
    assert read is not None  # cards are found by their titles
    count, gpu_name = read.count, read.name
    if not 1 <= count <= 1024:
        raise CellError(source_id, title, "title", f"GPU count {count} is not between 1 and 1024")
    _refuse_conflicting_names(card, source_id)
    labels.add(f"title:{read.form}")
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
