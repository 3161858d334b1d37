"""Vendor claims on any product page: the advertising sentences, as `vendor_claims` rows (text, page, date).

They are flagged as claims and used in no computed figure. A page that makes no claim is refused (the
claims are the whole point of the source), so a redesign that hides them is noticed.
"""

from __future__ import annotations

from pipelines.errors import ParseError
from pipelines.reading.sphinx import title
from pipelines.reading.tables import shape_fingerprint, soup_of
from pipelines.sources.file import SourceSpec
from pipelines.specs.claims import claims_of
from pipelines.specs.records import SpecBatch

PARSER_VERSION = "vendor_claims/1.0"


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> SpecBatch:
    soup = soup_of(body, charset)
    claims = claims_of(soup, str(source.url), title(soup) or None)
    if not claims:
        raise ParseError(source.id, "no vendor claim (a percentage or multiple with what it improves) on the page")
    return SpecBatch(
        source_id=source.id,
        parser_version=PARSER_VERSION,
        claims=claims,
        shape=shape_fingerprint(["claims"]),
    )
