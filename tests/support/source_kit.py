"""The checks every source gets, whatever its kind, for its own file `tests/sources/test_<source id>.py`.

A source's file subclasses `SourceChecks` and names its `source_id`; it adds what only that source needs. Each check
parses what the source's bundled sample holds (for a price-list region index: each sample region's offer file):
- the sample yields records of this source, with its adapter's parser version;
- the sample yields exactly the recorded figures, `tests/sources/expected/<source id>.jsonl` (every Decimal as its
  digits, one record a line): a parser change that moves a figure fails here, naming the record;
- an empty answer of each media type the source may answer with is refused with a typed ParseError naming it;
- a restyled answer reads the same: HTML without its `class` and `style` attributes (a parser finds data by
  meaning, never by styling), JSON re-serialised in another key order and layout, XML re-indented, CSV, RST and
  Markdown source with Windows line ends.

`RATECARD_WRITE_EXPECTED=1` writes the recorded figures afresh instead of comparing them, and fails the test so
that nothing passes on a write: review the diff, then commit it.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from typing import Any, ClassVar

import pytest
from bs4 import BeautifulSoup
from lxml import etree

from pipelines.adapters import parser_for, parser_version
from pipelines.errors import ParseError
from pipelines.fetch.pages import ENVELOPE, PageText, envelope
from pipelines.reading.sphinx import is_source_text
from pipelines.refresh.fan_out import sample_units
from pipelines.sources.file import SourceSpec, load_sources
from tests.support.paths import TESTS
from tests.support.sourcefiles import sample_answer

EXPECTED = TESTS / "sources" / "expected"
WRITE_ENV = "RATECARD_WRITE_EXPECTED"
# A well-formed answer with nothing in it, per media type a source may answer with.
EMPTY_ANSWERS = {
    "text/html": b"<html><head><title>Pricing</title></head><body><p>Nothing here today.</p></body></html>",
    "application/json": b"{}",
    "text/xml": b'<?xml version="1.0" encoding="UTF-8"?><root/>',
    "text/csv": b"",
    "application/x-javascript": b"callback({})",
    "text/plain": b"",
}


@cache
def declared() -> dict[str, SourceSpec]:
    return {s.id: s for s in load_sources()}


@cache
def units(source_id: str) -> tuple[SourceSpec, ...]:
    """What parses the source's samples: the source, or each sample region of a price-list region index."""
    return tuple(sample_units(declared()[source_id]))


def records_in(batch: Any) -> int:
    """How many records a batch holds: the lengths of its record lists (what the parser tolerated or refused aside)."""
    lists = [getattr(batch, name) for name in type(batch).model_fields if name not in ("warnings", "refused")]
    return sum(len(value) for value in lists if isinstance(value, list))


def parse(unit: SourceSpec, body: bytes | None = None) -> Any:
    return parser_for(unit.adapter)(sample_answer(unit) if body is None else body, unit)


def figures(batch: Any) -> dict[str, Any]:
    """The whole batch with every Decimal as its digits (the shape fingerprint is meant to differ)."""
    dumped: dict[str, Any] = batch.model_dump(mode="json", exclude={"shape"})
    return dumped


def as_lines(found: dict[str, dict[str, Any]]) -> list[str]:
    """Each unit's batch one field or list item a line (compact JSON, keys sorted): a moved figure is one line."""
    lines = []
    for unit_id, batch in found.items():
        for field, value in sorted(batch.items()):
            if isinstance(value, list):
                lines.append(compact({"unit": unit_id, "field": field, "items": len(value)}))
                lines += [compact({"unit": unit_id, "field": field, "item": item}) for item in value]
            else:
                lines.append(compact({"unit": unit_id, "field": field, "value": value}))
    return lines


def compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def restyled(unit: SourceSpec, body: bytes) -> bytes | None:
    """The answer with its styling changed and its meaning kept; None where the media type has no styling."""
    if unit.adapter_info.reads_html and not is_source_text(body):
        soup = BeautifulSoup(body, "lxml")
        for tag in soup.find_all(True):
            for styling in ("class", "style"):
                tag.attrs.pop(styling, None)
        return str(soup).encode("utf-8")
    media_types = unit.adapter_info.media_types
    if "application/json" in media_types and body.lstrip()[:1] in (b"{", b"["):
        document = json.loads(body)
        if isinstance(document, dict) and document.get("format") == ENVELOPE:  # each page restyled
            return envelope(document["paged_by"], [restyled_page(page) for page in document["pages"]])
        return json.dumps(reversed_keys(document), indent=3).encode("utf-8")
    if "text/xml" in media_types:
        return etree.tostring(etree.fromstring(body), pretty_print=True, xml_declaration=True, encoding="UTF-8")
    if {"text/csv", "text/x-rst", "text/markdown"} & set(media_types):
        return body.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")  # Windows line ends
    return None


def restyled_page(page: dict[str, Any]) -> PageText:
    text = json.dumps(reversed_keys(json.loads(page["text"])), indent=3)
    return PageText(page["reached_by"], text, hashlib.sha256(text.encode()).hexdigest())


def reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: reversed_keys(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(item) for item in value]
    return value


class SourceChecks:
    """Subclass as `class TestSource(SourceChecks)` with `source_id = "<id>"`: every check above, for that source."""

    source_id: ClassVar[str]

    def test_the_sample_yields_records_of_this_source(self) -> None:
        source = declared()[self.source_id]
        priced = 0
        for unit in units(self.source_id):
            batch = parse(unit)
            assert batch.source_id == unit.id
            assert batch.parser_version == parser_version(unit.adapter)
            if source.kind == "aws":
                assert len(batch.specs) >= 1
                assert (len(batch.prices) >= 1) == source.expects_prices
            elif source.kind == "pricelist":
                assert batch.region_code == unit.options.get("region_code")
                priced += len(batch.prices) + len(batch.pending)  # spot quotes wait for the price list's types
            else:  # any other kind: its batch holds at least one record
                assert records_in(batch) >= 1
        assert priced >= 1 or source.kind != "pricelist"

    def test_the_sample_yields_exactly_the_recorded_figures(self) -> None:
        found = {unit.id: figures(parse(unit)) for unit in units(self.source_id)}
        path = EXPECTED / f"{self.source_id}.jsonl"
        if os.environ.get(WRITE_ENV):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(f"{line}\n" for line in as_lines(found)), encoding="utf-8")
            pytest.fail(f"{path} written afresh ({WRITE_ENV} is set): review and commit it")
        assert path.is_file(), f"no recorded figures for {self.source_id}: run with {WRITE_ENV}=1 and review"
        recorded = path.read_text(encoding="utf-8").splitlines()
        lines = as_lines(found)
        assert [line for line in lines if line not in set(recorded)] == [], f"not in {path}"
        assert [line for line in recorded if line not in set(lines)] == [], f"in {path}, no longer parsed"
        assert lines == recorded, f"the same records as {path}, in another order"

    def test_an_empty_answer_is_refused_naming_the_source(self) -> None:
        for unit in units(self.source_id):
            for media_type in unit.adapter_info.media_types:
                if media_type in EMPTY_ANSWERS:
                    with pytest.raises(ParseError, match=rf"\[{unit.id}\]"):
                        parse(unit, EMPTY_ANSWERS[media_type])

    def test_a_restyled_answer_reads_the_same(self) -> None:
        for unit in units(self.source_id):
            body = sample_answer(unit)
            other = restyled(unit, body)
            assert other is not None, f"no restyling for {unit.id}'s media types {unit.adapter_info.media_types}"
            assert other != body
            assert figures(parse(unit, other)) == figures(parse(unit, body))
