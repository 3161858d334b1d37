"""A serverless provider's billing terms, read from what its page says: the billed increment, the idle time billed
before a worker scales down, and whether a cold start is billed.

Each is found by the sentence that states it (`rounded up to the nearest second`, `charged by the second`,
`idle timeout ... 5 seconds`,
`Spin-up is not billed`), never by where it sits. What the page does not say may come from the source's
`serverless` option in the sources file, which must then name the page that states it (`terms_url`): a documented
default is data with an address, a guess is not. An increment stated nowhere refuses the page.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from bs4 import BeautifulSoup

from pipelines.errors import ParseError
from pipelines.gpu.records import ServerlessBilling
from pipelines.reading.values import clean
from pipelines.sources.file import SourceSpec

_UNIT_SECONDS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1}
_UNIT_SECONDS |= {"min": 60, "mins": 60, "minute": 60, "minutes": 60}
_UNIT = r"(seconds?|secs?|s|minutes?|mins?)\b"
_INCREMENT = (
    # RunPod's docs: "charged by the second, with partial seconds rounded up to the next full second".
    re.compile(r"rounded up to the (?:nearest|next)(?: full)? (second|minute)", re.IGNORECASE),
    re.compile(r"\b(?:bill(?:ed|s|ing)?|charged) (?:per|by the|every) (second|minute)\b", re.IGNORECASE),
    re.compile(r"\bper[- ](second|minute) billing\b", re.IGNORECASE),
)
_IDLE = (
    re.compile(r"idle[- ]timeout[^.]*?\b(\d+)\s*" + _UNIT, re.IGNORECASE),
    re.compile(r"keep[- ]warm[^.]*?\b(\d+)\s*" + _UNIT, re.IGNORECASE),
    re.compile(r"scales? (?:down|to zero) after (\d+)\s*" + _UNIT, re.IGNORECASE),
)
_START = r"(?:cold[- ]starts?|start-?up|spin-?up|boot(?:ing)?|model load(?:ing)?|setup|worker start|on_start)"
_START_NOT_BILLED = re.compile(
    rf"{_START}[^.]*\b(?:is|are) (?:not (?:billed|charged)|free)\b|(?:not billed|not charged|free)[^.]*{_START}",
    re.IGNORECASE,
)
_START_BILLED = re.compile(rf"{_START}[^.]*\b(?:billed|charged)\b|\b(?:billed|charged)\b[^.]*{_START}", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", clean(text)) if s.strip()]


def _first(patterns: tuple[re.Pattern[str], ...], said: list[str]) -> tuple[re.Match[str], str] | None:
    for sentence in said:
        for pattern in patterns:
            if (match := pattern.search(sentence)) is not None:
                return match, sentence
    return None


def _cold_start(said: list[str]) -> tuple[bool, str] | None:
    for sentence in said:
        if _START_NOT_BILLED.search(sentence):
            return False, sentence
        if _START_BILLED.search(sentence):
            return True, sentence
    return None


def terms_on_page(text: str) -> dict[str, Any]:
    """The terms the page states, each with the sentence it came from (`<name>_sentence`)."""
    said = sentences(text)
    found: dict[str, Any] = {}
    if (hit := _first(_INCREMENT, said)) is not None:
        found["increment_seconds"] = _UNIT_SECONDS[hit[0].group(1).lower()]
        found["increment_seconds_sentence"] = hit[1]
    if (hit := _first(_IDLE, said)) is not None:
        found["idle_timeout_seconds"] = int(hit[0].group(1)) * _UNIT_SECONDS[hit[0].group(2).lower()]
        found["idle_timeout_seconds_sentence"] = hit[1]
    if (start := _cold_start(said)) is not None:
        found["cold_start_billed"], found["cold_start_billed_sentence"] = start
    return found


def serverless_billing(page_text: str, source: SourceSpec) -> ServerlessBilling:
    """The page's terms, with the gaps filled from the source's `serverless` option; raises ParseError naming the
    source when the billed increment is stated in neither, or the option fills a gap without naming its page."""
    page = terms_on_page(page_text)
    declared: dict[str, Any] = dict(source.options.get("serverless") or {})
    names = ("increment_seconds", "idle_timeout_seconds", "cold_start_billed")
    from_page = [name for name in names if name in page]
    from_option = [name for name in names if name not in page and name in declared]
    terms = {name: page[name] for name in from_page} | {name: declared[name] for name in from_option}
    if "increment_seconds" not in terms:
        raise ParseError(
            source.id,
            "the page states no billed increment (per second, per minute) and the sources file declares none "
            "(options.serverless.increment_seconds)",
        )
    quoted = list(dict.fromkeys(page[f"{name}_sentence"] for name in from_page))
    urls = [str(source.url)] if from_page else []
    if from_option:
        if not declared.get("terms_url"):
            raise ParseError(
                source.id, f"options.serverless gives {', '.join(from_option)} without terms_url, the page stating them"
            )
        said = ", ".join(f"{name} = {terms[name]}" for name in from_option)
        quoted.append(f"{declared.get('terms', 'Stated at')} {declared['terms_url']}: {said}")
        urls.append(str(declared["terms_url"]))
    return ServerlessBilling(**terms, terms=" ".join(quoted), terms_url=" ; ".join(urls))


def page_prose(soup: BeautifulSoup) -> str:
    """The words a page says: its body without scripts and site chrome (navigation, header, footer), whose
    titles would otherwise run into the quoted terms. Changes the soup: call it after reading the tables."""
    body = soup.body or soup
    for tag in body.find_all(["script", "style", "noscript", "template", "nav", "header", "footer"]):
        tag.decompose()
    return body.get_text(" ")


def hourly_disagreement(per_second: Decimal, hourly: Decimal) -> str | None:
    """Why a printed hourly display figure disagrees with the per-second price (per-second x 3,600 rounded to the
    decimals it prints), or None when it agrees: a page that disagrees with itself is refused, not averaged."""
    places = Decimal(1).scaleb(min(int(hourly.as_tuple().exponent), 0))
    exact = per_second * 3600
    if exact.quantize(places, rounding=ROUND_HALF_UP) == hourly:
        return None
    return f"hourly {hourly} disagrees with {per_second}/sec x 3600 = {exact}"
