"""An answer paged by what each page names next, fetched whole or not at all.

Two ways to page are read: a link (Azure's Retail Prices API: `NextPageLink` holds the next page's URL), or a
token (Google's Cloud Billing Catalog: `nextPageToken`, sent back as the `pageToken` query parameter with the first
request's own). Every page is fetched through the Fetcher (retries, limits, caps) until a page names nothing next.
Any page that fails, is not a JSON object, or names a next page that cannot be followed (not a link, back to a page
already read, past the limit) fails the whole answer, naming the page: nothing of a half-read answer lands, and the
last good version stays current.

A link is followed on the host the first page came from: its path and query are kept, and no other host is
contacted whatever the link names (an offline or test refresh serves the first page from 127.0.0.1).

The pages are kept as one body, a JSON envelope holding each page's text exactly as it arrived (UTF-8, as JSON
must be) with its SHA-256 and what led to it (the link or token the page before named), so the archive, the content
hash and a reparse all see the whole answer. Nothing in it varies from run to run but the pages themselves, so an
unchanged answer has an unchanged hash.
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
    """One page of a paged answer: the link or token that led to it (None for the first), its text as it arrived."""

    reached_by: str | None
    text: str
    sha256: str
    part: str | None = None  # the part of a split answer it belongs to (an Azure region); None for a whole answer


@dataclass(frozen=True)
class NextPage:
    """What names the next page: the top-level `key` of each page, holding a link, or a token sent back as the
    query parameter `token_param`."""

    key: str
    token_param: str | None = None

    def url(self, first: httpx.URL, named: str) -> httpx.URL:
        if self.token_param is not None:
            return first.copy_set_param(self.token_param, named)
        return first.copy_with(raw_path=httpx.URL(named).raw_path, fragment=None)  # on the first page's host


class PagesCutShort(FetchError):
    """A paged answer that failed after its first page: the pages read before the failure ride along, so a split
    (pipelines/fetch/split_pages.py) can see what they named. They never land by themselves."""

    def __init__(self, failed: FetchError, pages: list[PageText]) -> None:
        super().__init__(
            failed.source_id, failed.message, status=failed.status, retryable=failed.retryable, cause=failed.cause
        )
        self.pages = pages


def fetch_pages(
    fetcher: Fetcher, source_id: str, url: str, follow: NextPage, max_pages: int, **fetch: Any
) -> FetchResult:
    """Every page of the answer at `url`, following what each page names next, as one FetchResult whose body is the
    envelope. Raises FetchError (cause "paging" for a page that cannot be read as one) naming the failed page,
    PagesCutShort when pages were read before it."""
    pages, results = read_pages(fetcher, source_id, url, follow, max_pages, **fetch)
    return answer_of(envelope(follow.key, pages), results)


def read_pages(
    fetcher: Fetcher, source_id: str, url: str, follow: NextPage, max_pages: int, part: str | None = None, **fetch: Any
) -> tuple[list[PageText], list[FetchResult]]:
    """The pages of the answer at `url` (each labelled `part`), and each page's fetch; raises as fetch_pages."""
    pages: list[PageText] = []
    results: list[FetchResult] = []
    try:
        _follow_pages(fetcher, source_id, httpx.URL(url), follow, max_pages, part, pages, results, fetch)
    except FetchError as exc:
        if pages:
            raise PagesCutShort(exc, pages) from exc
        raise
    return pages, results


def _follow_pages(
    fetcher: Fetcher,
    source_id: str,
    first: httpx.URL,
    follow: NextPage,
    max_pages: int,
    part: str | None,
    pages: list[PageText],
    results: list[FetchResult],
    fetch: dict[str, Any],
) -> None:
    named: str | None = None
    seen = {str(first)}
    while True:
        number = len(pages) + 1
        target = str(first) if named is None else str(follow.url(first, named))
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
        reached_by, named = named, _named_next(source_id, number, text, follow)  # a page that is not one is no page
        pages.append(PageText(reached_by, text, result.sha256, part))
        results.append(result)
        if named is None:
            return
        if len(pages) >= max_pages:
            raise _unreadable(source_id, number, f"it names a page past the limit of {max_pages} pages")
        if str(follow.url(first, named)) in seen:
            raise _unreadable(source_id, number, f"its {follow.key} leads back to a page already read: {named}")
        seen.add(str(follow.url(first, named)))


def answer_of(body: bytes, results: list[FetchResult]) -> FetchResult:
    """The first page's request, status and time; the whole answer's body, hash, time taken and attempts."""
    elapsed, attempts = sum(r.elapsed_ms for r in results), sum(r.attempts for r in results)
    return replace(
        results[0], body=body, sha256=hashlib.sha256(body).hexdigest(), elapsed_ms=elapsed, attempts=attempts
    )


def envelope(next_key: str, pages: list[PageText], split: dict[str, Any] | None = None) -> bytes:
    """The pages as one JSON body (see the module's docstring); an answer read part by part names each page's part
    and carries what the split found (pipelines/fetch/split_pages.py)."""
    document: dict[str, Any] = {"format": ENVELOPE, "paged_by": next_key}
    if split is not None:
        document["split"] = split
    document["pages"] = [_page_entry(p) for p in pages]
    return json.dumps(document, ensure_ascii=False, indent=1).encode()


def _page_entry(page: PageText) -> dict[str, Any]:
    entry = {"reached_by": page.reached_by, "sha256": page.sha256, "text": page.text}
    return entry if page.part is None else {"part": page.part, **entry}


def _page_text(source_id: str, number: int, result: FetchResult) -> str:
    try:
        return result.body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _unreadable(source_id, number, f"it is not UTF-8 text ({exc})") from exc


def _named_next(source_id: str, number: int, text: str, follow: NextPage) -> str | None:
    """The link or token the page names next; None when it names none (absent, null or empty)."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise _unreadable(source_id, number, f"it is not JSON ({exc}): an answer cut off mid-page?") from exc
    if not isinstance(document, dict):
        raise _unreadable(source_id, number, f"it is not a JSON object but {type(document).__name__}")
    named = document.get(follow.key)
    if named is None or named == "":
        return None
    what = "token" if follow.token_param is not None else "link"
    if not isinstance(named, str):
        raise _unreadable(source_id, number, f"its {follow.key} is not a {what}: {named!r}")
    if follow.token_param is None:
        try:
            httpx.URL(named)
        except httpx.InvalidURL as exc:
            raise _unreadable(source_id, number, f"its {follow.key} is not a URL: {named!r}") from exc
    return named


def _unreadable(source_id: str, number: int, why: str) -> FetchError:
    message = f"page {number} of the answer cannot be read as a page, so no page of it lands: {why}"
    return FetchError(source_id, message, cause="paging")
