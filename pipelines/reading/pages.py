"""Reading a paged answer's pages (pipelines/fetch/pages.py keeps them in one envelope) as JSON documents."""

from __future__ import annotations

import hashlib
from typing import Any

from pipelines.errors import ParseError
from pipelines.fetch.pages import ENVELOPE
from pipelines.reading.json_body import load_json


def page_documents(body: bytes, source_id: str) -> list[Any]:
    """Each page's JSON document, in order, numbers as exact Decimals. A body that is not an envelope is one page
    on its own (an answer captured one page at a time). Each page's text must still hash to the SHA-256 taken as it
    arrived: an envelope changed since is refused."""
    document = load_json(body, source_id)
    if not (isinstance(document, dict) and document.get("format") == ENVELOPE):
        return [document]
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
    return documents
