"""A rendered page that lost its table, read from the source text its site serves beside it.

Sphinx drops a malformed list-table from the HTML, so the page is refused (RenderedTableMissing) although its
RST source (`_sources/<page>.rst.txt`) still carries the figures. The refusal names where that text lives; it is
then fetched like any page (the same Fetcher, only the source's own host, retries, size cap), archived, parsed
by the same adapter (which reads RST source as such) and checked as the source's body: its fetch_log row keeps
its own URL, fetch time, SHA-256 and parser version, and a warning names the rendered page it replaced (URL and
SHA-256; that body is archived too). When the text cannot be fetched, the page's refusal stands, saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from pipelines.errors import FetchError, ParseError, RenderedTableMissing
from pipelines.fetch.http import FetchResult
from pipelines.reading.sphinx import source_text_paths
from pipelines.refresh.checking import Checked, Prepared
from pipelines.sources.file import SourceSpec

Done = TypeVar("Done", Checked, Prepared | Checked)
Read = Callable[[SourceSpec, FetchResult], Done]  # check_fetched or prepare_fetched, archive and state bound
Fetch = Callable[[SourceSpec], FetchResult]  # fetch_source with its Fetcher bound
NOT_THERE = frozenset({404, 410})  # the next candidate suffix may be there


def read_or_source_text(
    source: SourceSpec, result: FetchResult, read: Read[Done], fetch: Fetch
) -> tuple[FetchResult, Done]:
    """The page read (`read`: archive, parse, ...); when it lacks its table and names a source text, that text
    fetched and read in its place. Returns the body that stands for the source (to land or quarantine) and the
    verdict on it."""
    done = read(source, result)
    if not isinstance(done, Checked) or not isinstance(done.error, RenderedTableMissing):
        return result, done
    error = done.error
    if not error.source_texts:
        return result, done
    try:
        text = fetch_first(source, error.source_texts, fetch)
    except FetchError as exc:
        refused = ParseError(source.id, f"{error.message}; its source text could not be fetched: {exc.message}")
        return result, replace(done, error=refused)
    read_text: Done = read(text_unit(source, text.url), text)
    note = (
        f"[{source.id}] the rendered page {result.url} (sha256 {result.sha256}) has no table: "
        f"read from its source text {text.url} instead"
    )
    return text, replace(read_text, warnings=[note, *read_text.warnings])


def fetch_first(source: SourceSpec, urls: tuple[str, ...], fetch: Fetch) -> FetchResult:
    """The first of `urls` that answers (a 404 or 410 tries the next); the last failure when none does."""
    failure: FetchError | None = None
    for url in urls:
        try:
            return fetch(text_unit(source, url))
        except FetchError as exc:
            if exc.status not in NOT_THERE:
                raise
            failure = exc
    assert failure is not None  # urls is never empty here
    raise failure


def text_unit(source: SourceSpec, url: str) -> SourceSpec:
    """The same source (id, adapter, options, host) at its source text's URL, its sample beside the page's."""
    suffix = next((s for s in (".rst.txt", ".rst") if url.endswith(s)), ".rst.txt")
    samples = [p for p in source_text_paths(source.sample) if p.endswith(suffix)]
    data = source.model_dump() | {"url": url, "sample": samples[0] if samples else source.sample}
    return SourceSpec.model_validate(data)
