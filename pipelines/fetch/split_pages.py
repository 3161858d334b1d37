"""A paged OData answer (Azure's Retail Prices API) read part by part when it cannot be read whole.

The whole answer is asked for first, as any paged answer (pipelines/fetch/pages.py). When a page after the first
fails, the pages read before it are not landed: each value of the split field (`armRegionName`) that they name is
asked for on its own, the source's `$filter` narrowed to it, and each such part is read whole or not at all. The
parts read whole land; a part that fails is named, and so keeps its last good version, as does every value no page
read before the failure named (it was never asked for). A failed first page names nothing to split by: the answer
fails as before.

The envelope then holds the parts' pages, each labelled with its part, and a `split` record: the field, why the
whole answer failed, and each failed part with why. A reparse reads the same envelope and so lands the same parts.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import httpx

from pipelines.errors import FetchError
from pipelines.fetch.http import Fetcher, FetchResult
from pipelines.fetch.pages import NextPage, PagesCutShort, PageText, answer_of, envelope, fetch_pages, read_pages
from pipelines.sources.file import Paging, SplitBy

FILTER = "$filter"  # OData's query parameter


def fetch_answer(fetcher: Fetcher, source_id: str, url: str, paging: Paging, **fetch: Any) -> FetchResult:
    """The answer at `url`, whole; else, where `paging.split` says how, part by part (see the module's docstring).
    Raises FetchError when neither the whole answer nor any part of it can be read."""
    follow = NextPage(paging.key, paging.token_param)
    try:
        return fetch_pages(fetcher, source_id, url, follow, paging.max_pages, **fetch)
    except PagesCutShort as cut:
        values = [] if paging.split is None else values_named(cut.pages, paging.split)
        if paging.split is None or not values:
            raise
        return _by_part(fetcher, source_id, url, follow, paging, paging.split, values, cut, fetch)


def values_named(pages: list[PageText], split: SplitBy) -> list[str]:
    """Each value of the split field the pages' items name, in the order first named."""
    values: dict[str, None] = {}
    for page in pages:
        items = json.loads(page.text).get(split.items)
        for item in items if isinstance(items, list) else []:
            value = item.get(split.by) if isinstance(item, dict) else None
            if isinstance(value, str) and value:
                values.setdefault(value, None)
    return list(values)


def narrowed(source_id: str, url: str, by: str, value: str) -> str:
    """`url` with its OData `$filter` narrowed to `by eq 'value'` (a quote in the value doubled, as OData escapes)."""
    parsed = httpx.URL(url)
    current = parsed.params.get(FILTER)
    if not current:
        raise FetchError(source_id, f"the answer cannot be read part by part: its URL has no {FILTER}", cause="paging")
    literal = value.replace("'", "''")
    return str(parsed.copy_set_param(FILTER, f"({current}) and {by} eq '{literal}'"))


def _by_part(
    fetcher: Fetcher,
    source_id: str,
    url: str,
    follow: NextPage,
    paging: Paging,
    split: SplitBy,
    values: list[str],
    cut: PagesCutShort,
    fetch: dict[str, Any],
) -> FetchResult:
    pages: list[PageText] = []
    results: list[FetchResult] = []
    failed: dict[str, str] = {}
    for value in values:
        try:
            part_url = narrowed(source_id, url, split.by, value)
            part_pages, part_results = read_pages(
                fetcher, source_id, part_url, follow, paging.max_pages, part=value, **fetch
            )
        except FetchError as exc:
            failed[value] = exc.message
            continue
        pages += [replace(part_pages[0], reached_by=part_url), *part_pages[1:]]  # each part traces to its query
        results += part_results
    if not pages:
        first = next(iter(failed.items()))
        raise FetchError(
            source_id,
            f"{cut.message}; read {split.by} by {split.by} instead, every one of the {len(values)} failed too "
            f"({first[0]}: {first[1]})",
            status=cut.status,
            retryable=cut.retryable,
            cause=cut.cause,
        ) from cut
    record = {"by": split.by, "whole_answer_failed": cut.message, "failed": failed}
    return replace(answer_of(envelope(follow.key, pages, record), results), url=url)  # the source's own URL
