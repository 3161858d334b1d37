"""AWS Neuron SDK release notes: the latest release's version and date (one SdkRelease).

The pages print dates five ways that disagree ("August 17, 2026", "08/17/2026", "5/1/2026", headings
"(05/21/2026)", anchors "2026-08-13"). The release's own statement wins: "Date of release: <date>" on a
release page, else "On <date>, AWS released version <v>" on the index. Every other date printed (meta
description, date-modified, "Last updated") is kept in `other_dates`, as provenance only.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from bs4 import Tag

from pipelines.errors import ParseError
from pipelines.reading.sphinx import normalise, prose, title
from pipelines.reading.tables import shape_fingerprint, soup_of
from pipelines.sources.file import SourceSpec
from pipelines.specs.records import SdkRelease, SpecBatch

PARSER_VERSION = "neuron_release/1.0"

_DATE = r"(?:[A-Z][a-z]+ \d{1,2}, \d{4}|\d{1,2}/\d{1,2}/\d{4}|\d{4}-\d{2}-\d{2})"
_VERSION = r"v?(\d+\.\d+(?:\.\d+)?)"
_OWN_DATE = re.compile(rf"(?:Date of release|Release date)\s*:\s*({_DATE})", re.IGNORECASE)
_RELEASED_ON = re.compile(rf"On\s+({_DATE})\s*,\s*AWS released version\s+{_VERSION}", re.IGNORECASE)
_VERSION_IN_TITLE = re.compile(rf"Neuron SDK (?:Release Notes - )?{_VERSION}", re.IGNORECASE)
_CURRENT = re.compile(rf"(?:Current|latest) (?:release|Neuron release)(?: version)?(?: is)?\s*:?\s*{_VERSION}", re.I)


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> SpecBatch:
    soup = soup_of(body, charset)
    text = prose(soup)
    metas = " ; ".join(str(m.get("content", "")) for m in soup.find_all("meta") if isinstance(m, Tag))
    version, printed = _version_and_date(title(soup), text, metas, source)
    others = sorted({d for d in re.findall(_DATE, text + " ; " + metas) if d != printed})
    release = SdkRelease(
        version=version, release_date=to_date(printed, source), date_printed=printed, other_dates=others
    )
    return SpecBatch(
        source_id=source.id, parser_version=PARSER_VERSION, releases=[release], shape=shape_fingerprint(["release"])
    )


def _version_and_date(heading: str, text: str, metas: str, source: SourceSpec) -> tuple[str, str]:
    own = _OWN_DATE.search(text)
    released = _RELEASED_ON.search(text)
    version = _VERSION_IN_TITLE.search(heading) or _CURRENT.search(text + " ; " + metas)
    if own and version:
        return version[1], own[1]
    if released:
        return released[2], released[1]
    raise ParseError(source.id, f"no release version with its date on the page (title {normalise(heading)!r})")


def to_date(printed: str, source: SourceSpec) -> date:
    for layout in ("%B %d, %Y", "%m/%d/%Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(printed, layout).replace(tzinfo=UTC).date()
        except ValueError:
            continue
    raise ParseError(source.id, f"release date {printed!r} is in no known format")
