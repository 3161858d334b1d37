"""AWS Neuron documentation pages that give a status to a framework or package: the PyTorch and JAX framework
pages, the vLLM Neuron overview and the release-notes index (its component table tags "(Beta)" in the name cell;
its release table gives each release's date).

A page is read as text units (bullets, paragraphs, headings, table cells) from its rendered HTML, or from its RST
source when the body is one; pipelines/neuron_gate/statements.py finds the statements in them by their words. A
rendered page with no statement is refused with RenderedTableMissing naming its source text
(`_sources/<page>.rst.txt`), which the refresh then fetches and this adapter reads, as for the hardware pages.
The documentation release is the `/en/<version>/` of the URL, else the page's own "AWS released version <v>";
neither: not stated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime

from bs4 import BeautifulSoup, Comment, Tag

from pipelines.errors import ParseError, RenderedTableMissing
from pipelines.neuron_gate.records import GateBatch, ReleaseDate
from pipelines.neuron_gate.statements import statements_in
from pipelines.reading.sphinx import is_source_text, normalise, source_text_paths, table_rows, url_version
from pipelines.reading.tables import shape_fingerprint, soup_of
from pipelines.sources.file import SourceSpec
from pipelines.specs import rst_tables

PARSER_VERSION = "neuron_status/1.1"

_DATE = r"\d{1,2}/\d{1,2}/\d{2,4}"
_RELEASE = r"\d+\.\d+\.\d+"
_RELEASED_ON = re.compile(rf"On\s+({_DATE})\s*,\s*AWS released version\s+({_RELEASE})", re.IGNORECASE)
_CURRENT = re.compile(rf"Current release version:\s*({_RELEASE})", re.IGNORECASE)
_BLOCKS = ["li", "p", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dt", "dd"]
_NESTED = ("ul", "ol", "table")
_POSTED = re.compile(r"^\.\.\s+post::\s*(?P<date>[A-Z][a-z]+ \d{1,2}, \d{4})", re.MULTILINE)
# An RST comment: ".." followed by anything but a directive, a label or a substitution (a sample's own note).
_COMMENT = re.compile(r"^\.\.(?:\s+(?![\w:-]+::|_[\w.-]+:|\|)|$)")
_DIRECTIVE = re.compile(r"^\.\.\s+[\w:-]+::|^\.\.\s+_[\w.-]+:$|^:[\w-]+:(?:\s|$)")
_UNDERLINE = re.compile(r"^([=\-~^*#+`'\"])\1{2,}$")
_BULLET = re.compile(r"^(?:\*\s+-|[*+-]|\d+\.)\s+")


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GateBatch:
    url = str(source.url)
    if is_source_text(body):
        text = _decoded(body, source, charset)
        units, tables = _rst_units(text), [t.rows for t in _rst_tables(text, source)]
        meta = text
    else:
        text = ""
        soup = soup_of(body, charset)
        units, tables = _html_units(soup), [[[c.text for c in row] for row in table_rows(t)] for t in soup("table")]
        meta = " ; ".join(str(m.get("content", "")) for m in soup("meta") if isinstance(m, Tag))
    joined = " ; ".join(units) + " ; " + meta
    released = _RELEASED_ON.search(joined)
    version = url_version(url)
    if version in (None, "latest", "stable"):
        current = _CURRENT.search(joined)
        version = released[2] if released else current[1] if current else None
    statements, warnings = statements_in(units, version, _posted(text, source) if is_source_text(body) else None)
    releases = _release_dates(tables, released, source)
    if not statements and not releases:
        message = "no status statement (recommended, supported, beta, archived, not included) and no release date"
        if is_source_text(body):
            raise ParseError(source.id, f"RST source {url}: {message}")
        raise RenderedTableMissing(source.id, message, tuple(source_text_paths(url)))
    shape = sorted({s.status for s in statements}) + (["release dates"] if releases else [])
    return GateBatch(
        source_id=source.id,
        parser_version=PARSER_VERSION,
        statements=statements,
        releases=releases,
        warnings=warnings,
        shape=shape_fingerprint(shape),
    )


def _posted(text: str, source: SourceSpec) -> date | None:
    """The date an announcement was posted (`.. post:: May 20, 2026`); None where the page gives none."""
    posted = _POSTED.search(text)
    if posted is None:
        return None
    try:
        return datetime.strptime(posted["date"], "%B %d, %Y").replace(tzinfo=UTC).date()
    except ValueError as exc:
        raise ParseError(source.id, f"announcement date {posted['date']!r} is not a 'Month day, year' date") from exc


def _decoded(body: bytes, source: SourceSpec, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8")
    except (UnicodeDecodeError, LookupError) as exc:
        raise ParseError(source.id, f"RST source {source.url}: not readable text ({exc})") from exc


def _rst_tables(text: str, source: SourceSpec) -> list[rst_tables.RstTable]:
    try:
        return rst_tables.tables(text)
    except rst_tables.MalformedTable as exc:
        raise ParseError(source.id, f"RST source {source.url}: {exc}") from exc


def _rst_units(text: str) -> list[str]:
    """Paragraphs, bullets, headings and list-table cells of RST source, markup reduced to text."""
    units: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            units.append(rst_tables.inline_text(" ".join(current)))
            current.clear()

    in_comment = False
    for line in text.splitlines():
        stripped = line.strip()
        if in_comment and stripped and line[:1].isspace():
            continue  # a comment's indented lines
        in_comment = _COMMENT.match(line) is not None
        if not stripped or in_comment or _DIRECTIVE.match(stripped) or _UNDERLINE.match(stripped):
            flush()
            continue
        if _BULLET.match(stripped):
            flush()
            stripped = _BULLET.sub("", stripped)
        current.append(stripped)
    flush()
    return [u for u in units if u]


def _html_units(soup: BeautifulSoup) -> list[str]:
    """The text of every block outside navigation, a bullet's nested bullets and tables being units of their own
    (and a heading's permalink "#" dropped)."""
    units = []
    for tag in soup.find_all(_BLOCKS):
        if tag.find_parent(["nav", "header", "footer"]) is not None:
            continue
        text = normalise("".join(_own_strings(tag)))
        if text:
            units.append(text)
    return units


def _own_strings(tag: Tag) -> Iterator[str]:
    """The block's strings, without those of a list or table nested in it, or of a permalink."""
    for string in tag.find_all(string=True):
        if isinstance(string, Comment) or (string.strip() == "#" and string.parent and string.parent.name == "a"):
            continue
        parent = string.parent
        while parent is not None and parent is not tag and parent.name not in _NESTED:
            parent = parent.parent
        if parent is tag:
            yield str(string)


def _release_dates(
    tables: list[list[list[str]]], released: re.Match[str] | None, source: SourceSpec
) -> list[ReleaseDate]:
    """Each release's date from a table headed by a version and a date column, and the page's "On <date>, AWS
    released version <v>"; two different dates for one release are refused."""
    found: dict[str, ReleaseDate] = {}
    pairs = [(released[2], released[1])] if released else []
    for rows in tables:
        header = [cell.lower() for cell in rows[0]] if rows else []
        if len(header) < 2 or "version" not in header[0] or "date" not in header[1]:
            continue
        pairs += [(row[0], row[1]) for row in rows[1:] if len(row) >= 2]
    for release_cell, date_cell in pairs:
        release, printed = re.search(_RELEASE, release_cell), re.search(_DATE, date_cell)
        if release is None or printed is None:
            continue
        day = _date(printed[0], source)
        known = found.get(release[0])
        if known is not None and known.release_date != day:
            raise ParseError(source.id, f"release {release[0]} is dated both {known.date_printed} and {printed[0]}")
        found[release[0]] = ReleaseDate(release=release[0], release_date=day, date_printed=printed[0])
    return list(found.values())


def _date(printed: str, source: SourceSpec) -> date:
    layout = "%m/%d/%Y" if len(printed.rsplit("/", 1)[1]) == 4 else "%m/%d/%y"
    try:
        return datetime.strptime(printed, layout).replace(tzinfo=UTC).date()
    except ValueError as exc:
        raise ParseError(source.id, f"release date {printed!r} is not a month/day/year date") from exc
