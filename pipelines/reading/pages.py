"""Reading a paged answer's pages (pipelines/fetch/pages.py keeps them in one envelope) as JSON documents."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from pipelines.errors import ParseError
from pipelines.fetch.pages import ENVELOPE
from pipelines.reading.json_body import load_json


@dataclass(frozen=True)
class SplitRead:
    """An answer read part by part (pipelines/fetch/split_pages.py): the field it split by, why the whole answer
    could not be read, the parts read whole (in order) and each failed part with why."""

    by: str
    whole_answer_failed: str
    read: tuple[str, ...]
    failed: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PagedAnswer:
    documents: list[Any]  # each page's JSON document, in order
    split: SplitRead | None = None  # None: the answer was read whole


def page_documents(body: bytes, source_id: str) -> list[Any]:
    """Each page's JSON document, in order, numbers as exact Decimals. A body that is not an envelope is one page
    on its own (an answer captured one page at a time). Each page's text must still hash to the SHA-256 taken as it
    arrived: an envelope changed since is refused."""
    return paged_answer(body, source_id).documents


def paged_answer(body: bytes, source_id: str) -> PagedAnswer:
    """The pages' documents (as page_documents) and, for an answer read part by part, what the split found."""
    document = load_json(body, source_id)
    if not (isinstance(document, dict) and document.get("format") == ENVELOPE):
        return PagedAnswer([document])
    pages = document.get("pages")
    if not isinstance(pages, list) or not pages:
        raise ParseError(source_id, "the paged answer holds no page")
    documents = []
    for number, page in enumerate(pages, start=1):
        text = page.get("text") if isinstance(page, dict) else None
        if not isinstance(text, str):
            raise ParseError(source_id, f"page {number} of the paged answer has no text")
        if hashlib.sha256(text.encode()).hexdigest() != page.get("sha256"):
            message = f"page {number} of the paged answer does not hash to the SHA-256 it arrived with"
            raise ParseError(source_id, message)
        try:
            documents.append(load_json(text.encode(), source_id))
        except ParseError as exc:
            raise ParseError(source_id, f"page {number} of the paged answer: {exc.message}") from exc
    return PagedAnswer(documents, _split_of(document, pages, source_id))


def _split_of(document: dict[str, Any], pages: list[Any], source_id: str) -> SplitRead | None:
    split = document.get("split")
    if split is None:
        return None
    by, why, failed = (
        split.get(k) if isinstance(split, dict) else None for k in ("by", "whole_answer_failed", "failed")
    )
    parts = [page.get("part") for page in pages]
    if not (isinstance(by, str) and isinstance(why, str) and isinstance(failed, dict)):
        raise ParseError(source_id, "the paged answer's split record lacks its field, reason or failed parts")
    if not all(isinstance(part, str) for part in parts):
        raise ParseError(source_id, "a page of the answer read part by part names no part")
    return SplitRead(by, why, tuple(dict.fromkeys(parts)), {str(k): str(v) for k, v in failed.items()})
