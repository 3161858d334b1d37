"""Vendor claims on product pages ("up to 50% cost-to-train savings", "30-40% better price performance than
P5e and P5en"): sentences that state a percentage or a multiple against something, kept as text."""

from __future__ import annotations

import re
from datetime import date

from bs4 import BeautifulSoup

from pipelines.reading.sphinx import normalise
from pipelines.specs.records import VendorClaim

# A share or a multiple, then what it is better at: savings, price performance, faster, lower cost, ...
_CLAIM = re.compile(
    r"(\d+(?:\.\d+)?\s*(?:[-–]\s*\d+(?:\.\d+)?\s*)?(?:%|percent|x\b|times)).{0,80}?"
    r"(sav|price[- ]performance|cheaper|lower cost|faster|better|higher|more|less)",
    re.IGNORECASE,
)
_DATE_META = ("article:modified_time", "last-modified", "date-modified", "date")


def claims_of(soup: BeautifulSoup, page_url: str, page_title: str | None) -> list[VendorClaim]:
    """One claim per sentence that makes one; tables (figures, not advertising) are not read."""
    on = page_date(soup)
    seen: set[str] = set()
    claims = []
    for tag in soup.find_all(["p", "li", "h2", "h3"]):
        if tag.find_parent(["table", "nav", "footer", "script"]) is not None or tag.find(["p", "li"]):
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", normalise(tag.get_text(" ", strip=True))):
            if _CLAIM.search(sentence) and sentence not in seen:
                seen.add(sentence)
                claims.append(VendorClaim(claim_text=sentence, page_url=page_url, page_title=page_title, page_date=on))
    return claims


def page_date(soup: BeautifulSoup) -> date | None:
    for name in _DATE_META:
        meta = soup.find("meta", attrs={"name": name}) or soup.find("meta", attrs={"property": name})
        content = str(meta.get("content", "")) if meta else ""
        found = re.match(r"(\d{4})-(\d{2})-(\d{2})", content)
        if found:
            return date(int(found[1]), int(found[2]), int(found[3]))
    return None
