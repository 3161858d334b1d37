"""Cell-text parsers for the quirks real pricing pages print: `$39.33 USD`, `$ 2.40`, `Up to 12.5`,
`1,536`, footnote marks, `16 x AWS Trainium2 accelerators`, `640 GB HBM3`.

Each returns None for a cell that states nothing (empty, `-`, `N/A`) and raises ValueError, with the text,
for a cell that states something it cannot read, so a parser never invents a number.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from price_parser import Price

_EMPTY = {"", "-", "–", "—", "n/a", "na", "none", "not available", "tbd"}
_FOOTNOTE = re.compile(r"[*†‡§¹²³⁴⁵⁶⁷⁸⁹⁰]+")
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_ACCELERATOR = re.compile(
    r"^\s*(?P<count>\d+)\s*[x×]\s*(?:aws\s+|nvidia\s+|amd\s+)?(?P<name>.+?)(?:\s+(?:accelerators?|chips?|gpus?))?\s*$",
    re.IGNORECASE,
)
_MEMORY = re.compile(r"(?P<value>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<unit>[KMGT]i?B)\b", re.IGNORECASE)
_UNIT_SPELLING = {"gb": "GB", "gib": "GiB", "tb": "TB", "tib": "TiB", "mb": "MB", "mib": "MiB"}


def clean(text: str | None) -> str:
    """Collapse whitespace and drop footnote marks."""
    if text is None:
        return ""
    return " ".join(_FOOTNOTE.sub("", text).split())


def is_empty(text: str | None) -> bool:
    return clean(text).lower() in _EMPTY


def _refuse_ambiguous(text: str, decimal_separator: str) -> None:
    """price-parser drops signs, reads `1e308` as 1 and `$3,43` as 343: refuse such cells instead."""
    if re.search(r"(^|[^\w])-\s*[$€£]?\s*\d", text):
        raise ValueError(f"negative amount in price cell {text!r}")
    if re.search(r"\d[eE][+-]?\d", text):
        raise ValueError(f"exponent notation in price cell {text!r}")
    other = "," if decimal_separator == "." else "."
    if re.search(rf"\d{re.escape(other)}\d{{1,2}}(?!\d)", text):
        raise ValueError(f"price cell {text!r} uses {other!r} as a decimal separator")


def parse_usd(text: str | None) -> Decimal | None:
    """A US-dollar amount; refuses any other currency rather than treating it as dollars."""
    if is_empty(text):
        return None
    amount = parse_money(text, "USD")
    if amount is None:  # price-parser reads `Free` as 0; a cell with no digits states no price
        raise ValueError(f"no amount in price cell {text!r}")
    if not re.search(r"\$|\bUSD\b", text or ""):
        raise ValueError(f"price cell {text!r} names no currency")
    return amount


CURRENCY_MARKS = {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP"}


def parse_money(text: str | None, currency: str, *, decimal_separator: str = ".") -> Decimal | None:
    """An amount in the declared ISO currency (`€ 7.50`, `7,50 EUR`, `$ 2.40 per Hour`).

    A cell naming another currency is refused; a cell naming none is taken to be in the declared one only
    because the source declares it (a page priced in one currency prints it once, in the header).
    """
    if is_empty(text) or not re.search(r"\d", clean(text)):
        return None
    # An explicit decimal separator: left to guess, price-parser reads `$4.916` as 4916.
    price = Price.fromstring(clean(text), decimal_separator=decimal_separator)
    if price.amount is None:
        raise ValueError(f"no amount in price cell {text!r}")
    if price.currency is not None:
        code = CURRENCY_MARKS.get(price.currency, price.currency.upper())
        if code != currency:
            raise ValueError(f"price cell {text!r} is in {price.currency}, not {currency}")
    _refuse_ambiguous(clean(text), decimal_separator)
    return price.amount


# Billing-period words; in a cell that names several, the one printed first wins.
_PERIODS = (
    (r"\b(sec|second)s?\b|/\s*s\b", "second"),
    (r"\bmin(ute)?s?\b", "minute"),
    (r"\b(hr|hour)s?\b|/\s*h\b", "hour"),
    (r"\bdays?\b", "day"),
    (r"\b(week|wk)s?\b", "week"),
    (r"\b(month|mo)s?\b", "month"),
)


def parse_period(*texts: str, default: str = "hour") -> str:
    """The billing period a price cell (or, failing that, its header) names: `$2.99 / GPU / hr` -> hour."""
    for text in texts:
        hits = [(m.start(), period) for pattern, period in _PERIODS if (m := re.search(pattern, text.lower()))]
        if hits:
            return min(hits)[1]
    return default


def parse_decimal(text: str | None) -> Decimal | None:
    """The first number in a cell (`Up to 12.5` -> 12.5, `1,536` -> 1536)."""
    if is_empty(text):
        return None
    match = _NUMBER.search(clean(text))
    if match is None:
        raise ValueError(f"no number in cell {text!r}")
    try:
        return Decimal(match.group(0).replace(",", ""))
    except InvalidOperation as exc:  # pragma: no cover - the regex admits only digits
        raise ValueError(f"bad number in cell {text!r}") from exc


def parse_int(text: str | None) -> int | None:
    value = parse_decimal(text)
    if value is None:
        return None
    if value != value.to_integral_value():
        raise ValueError(f"expected a whole number in cell {text!r}")
    return int(value)


def parse_accelerators(text: str | None) -> tuple[int, str | None]:
    """`16 x AWS Trainium2 accelerators` -> (16, 'Trainium2'); a bare `16` -> (16, None)."""
    cell = clean(text)
    match = _ACCELERATOR.match(cell)
    if match:
        return int(match.group("count")), match.group("name").strip()
    count = parse_int(cell)
    if count is None:
        raise ValueError(f"no accelerator count in cell {text!r}")
    return count, None


def parse_memory(text: str | None) -> tuple[Decimal, str] | None:
    """`640 GB HBM3` -> (640, 'GB'); `1.5 TB` -> (1.5, 'TB'). The unit is kept as printed."""
    if is_empty(text):
        return None
    match = _MEMORY.search(clean(text))
    if match is None:
        raise ValueError(f"no memory figure with a unit in cell {text!r}")
    unit = _UNIT_SPELLING.get(match.group("unit").lower())
    if unit is None:
        raise ValueError(f"unknown memory unit in cell {text!r}")
    return Decimal(match.group("value").replace(",", "")), unit


def parse_memory_in(text: str | None, header_unit: str | None) -> tuple[Decimal, str] | None:
    """A memory cell whose unit may be printed in the header instead (`Accelerator Memory (GB)` | `512`)."""
    if is_empty(text):
        return None
    if _MEMORY.search(clean(text)):
        return parse_memory(text)
    if header_unit is None:
        raise ValueError(f"memory cell {text!r} has no unit and its header names none")
    value = parse_decimal(text)
    return (value, header_unit) if value is not None else None


def unit_in_header(header: str) -> str | None:
    """`Accelerator Memory (GB)` -> 'GB'."""
    match = re.search(r"\(\s*([KMGT]i?B)\s*\)", header, re.IGNORECASE)
    return _UNIT_SPELLING.get(match.group(1).lower()) if match else None


def full_release(text: str) -> str:
    """A version as three numbers, the way release manifests number it: a printed "2.30" is release 2.30.0."""
    return f"{text}.0" if re.fullmatch(r"\d+\.\d+", text) else text
