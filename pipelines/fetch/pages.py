"""An answer paged by a link in each page (Azure's Retail Prices API: `NextPageLink`), fetched whole or not at all.

Every page is fetched through the Fetcher (retries, limits, caps) until a page's link is empty. Any page that
fails, is not a JSON object, or names a link that cannot be followed fails the whole answer, naming the page:
nothing of a half-read answer lands, and the last good version stays current.

A link is followed on the host the first page came from: its path and query are kept, and no other host is
contacted whatever the link names (an offline or test refresh serves the first page from 127.0.0.1).

The pages are kept as one body, a JSON envelope holding each page's text exactly as it arrived (UTF-8, as JSON
must be) with its SHA-256 and the link that led to it, so the archive, the content hash and a reparse all see
the whole answer. Nothing in it varies from run to run but the pages themselves, so an unchanged answer has an
unchanged hash.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

import httpx

from pipelines.errors import FetchError
from pipelines.fetch.http import Fetcher, FetchResult

ENVELOPE = "ratecard.pages/1"  # the envelope's own format, first in it


@dataclass(frozen=True)
class PageText:
    """One page of a paged answer: the link that led to it (None for the first) and its text as it arrived."""

    link: str | None
    text: str
    sha256: str


def fetch_pages(fetcher: Fetcher, source_id: str, url: str, next_key: str, max_pages: int, **fetch: Any) -> FetchResult:
    """Every page of the answer at `url`, following each page's `next_key`, as one FetchResult whose body is the
    envelope. Raises FetchError (cause "paging" for a page that cannot be read as one) naming the failed page."""
    first = httpx.URL(url)
    pages: list[PageText] = []
    results: list[FetchResult] = []
    link: str | None = None
    seen = {str(first)}
    while True:
        number = len(pages) + 1
        target = str(first) if link is None else str(_on_first_host(first, link))
        try:
            result = fetcher.fetch(source_id, target, **fetch)
        except FetchError as exc:
            raise FetchError(
                source_id,
                f"page {number} of the answer: {exc.message}",
                status=exc.status,
                retryable=exc.retryable,
                cause=exc.cause,
            ) from exc
        text = _page_text(source_id, number, result)
        pages.append(PageText(link, text, result.sha256))
        results.append(result)
        link = _next_link(source_id, number, text, next_key)
        if link is None:
            break
        if len(pages) >= max_pages:
            raise _unreadable(source_id, number, f"it links to a page past the limit of {max_pages} pages")
        if str(_on_first_host(first, link)) in seen:
            raise _unreadable(source_id, number, f"its {next_key} leads back to a page already read: {link}")
        seen.add(str(_on_first_host(first, link)))
    body = envelope(next_key, pages)
    elapsed, attempts = sum(r.elapsed_ms for r in results), sum(r.attempts for r in results)
    # The first page's request, status and time; the whole answer's body, hash, time taken and attempts.
    return replace(
        results[0], body=body, sha256=hashlib.sha256(body).hexdigest(), elapsed_ms=elapsed, attempts=attempts
    )


def envelope(next_key: str, pages: list[PageText]) -> bytes:
    """The pages as one JSON body (see the module's docstring)."""
    document = {
        "format": ENVELOPE,
        "paged_by": next_key,
        "pages": [{"link": p.link, "sha256": p.sha256, "text": p.text} for p in pages],
    }
    return json.dumps(document, ensure_ascii=False, indent=1).encode()


def _on_first_host(first: httpx.URL, link: str) -> httpx.URL:
    """The link's path and query on the first page's scheme, host and port (checked a URL by _next_link)."""
    target = httpx.URL(link)
    return first.copy_with(raw_path=target.raw_path, fragment=None)


def _page_text(source_id: str, number: int, result: FetchResult) -> str:
    try:
        return result.body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _unreadable(source_id, number, f"it is not UTF-8 text ({exc})") from exc


def _next_link(source_id: str, number: int, text: str, next_key: str) -> str | None:
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise _unreadable(source_id, number, f"it is not JSON ({exc}): an answer cut off mid-page?") from exc
    if not isinstance(document, dict):
        raise _unreadable(source_id, number, f"it is not a JSON object but {type(document).__name__}")
    link = document.get(next_key)
    if link is None or link == "":
        return None
    if not isinstance(link, str):
        raise _unreadable(source_id, number, f"its {next_key} is not a link: {link!r}")
    try:
        httpx.URL(link)
    except httpx.InvalidURL as exc:
        raise _unreadable(source_id, number, f"its {next_key} is not a URL: {link!r}") from exc
    return link


def _unreadable(source_id: str, number: int, why: str) -> FetchError:
    message = f"page {number} of the answer cannot be read as a page, so no page of it lands: {why}"
    return FetchError(source_id, message, cause="paging")
