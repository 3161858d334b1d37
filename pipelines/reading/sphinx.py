"""Reading Neuron documentation pages (Sphinx, pydata/book theme) by structure and text, never by class name.

Tables come header-less (grid tables: label cell, prose cell), with a stub column, with two header rows
and bold section rows, or not at all (a malformed list-table renders as nothing). Headings end with a
permalink "#". The doc version is the `/en/<ver>/` in the URL, else what the page says of itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bs4 import BeautifulSoup, Tag

_VERSION_IN_URL = re.compile(r"/en/(latest|stable|v?\d+\.\d+(?:\.\d+)?(?:\.beta)?)/")
# The page's source text, which Sphinx serves beside the HTML: `.rst.txt` (the default suffix), or `.rst` as some
# releases of the Neuron docs serve it.
SOURCE_SUFFIXES = (".rst.txt", ".rst")


def normalise(text: str) -> str:
    """Whitespace collapsed: grid-table cells wrap mid-phrase ("3.4\\nTB/sec")."""
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()


@dataclass(frozen=True)
class Cell:
    text: str
    tag: Tag


def cell_text(tag: Tag) -> str:
    """A cell's text with bullets kept apart ("; "), so figures split across bullets stay separate figures."""
    items = tag.find_all("li")
    if not items:
        return normalise(tag.get_text(" ", strip=True))
    lead = [normalise(p.get_text(" ", strip=True)) for p in tag.find_all("p") if p.find_parent("li") is None]
    bullets = [normalise(li.get_text(" ", strip=True)) for li in items if li.find("li") is None]
    return "; ".join([*lead, *bullets])


def source_text_paths(path: str) -> list[str]:
    """Where a rendered page's source text lives: /en/<ver>/<page>.html -> /en/<ver>/_sources/<page>.rst.txt (then
    .rst). Works on a URL or a sample path alike; [] for a path that is no Sphinx page under /en/<ver>/."""
    found = _VERSION_IN_URL.search(path)
    if found is None or not path.endswith(".html") or "/_sources/" in path:
        return []
    page = path[found.end() :].removesuffix(".html")
    return [f"{path[: found.end()]}_sources/{page}{suffix}" for suffix in SOURCE_SUFFIXES]


def is_source_text(body: bytes) -> bool:
    """A body that is reStructuredText source rather than a rendered page (which opens with markup)."""
    return not body.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")


def title(soup: BeautifulSoup) -> str:
    """The page's first heading without the permalink "#" (the theme may repeat it in a second <h1>)."""
    heading = soup.find("h1")
    if heading is None:
        return ""
    for link in heading.find_all("a"):
        link.decompose()
    return normalise(heading.get_text(" ", strip=True)).rstrip("#").strip()


def url_version(url: str) -> str | None:
    """The release in a docs URL (`/en/v2.29.1/` -> 2.29.1; `latest` kept as it is), else None."""
    found = _VERSION_IN_URL.search(url)
    return (found[1] if found[1] in ("latest", "stable") else found[1].removeprefix("v")) if found else None


def doc_version(soup: BeautifulSoup, url: str) -> str | None:
    """`/en/v2.29.1/` in the URL, else the page's own version (docsearch meta, or the Sphinx options)."""
    found = _VERSION_IN_URL.search(url)
    if found and found[1] not in ("latest", "stable"):
        return found[1].removeprefix("v")
    meta = soup.find("meta", attrs={"name": "docsearch:version"})
    if isinstance(meta, Tag) and meta.get("content"):
        return str(meta["content"]).removeprefix("v")
    script = soup.find(string=re.compile(r"VERSION\s*:\s*['\"]"))
    if script:
        version = re.search(r"VERSION\s*:\s*['\"]v?([\d.]+\w*)['\"]", str(script))
        if version:
            return version[1]
    return found[1] if found else None


def table_rows(table: Tag) -> list[list[Cell]]:
    """Every row of a table (header rows included) as its th/td cells, nested tables left out."""
    rows = []
    for tr in table.find_all("tr"):
        if tr.find_parent("table") is not table:
            continue
        rows.append([Cell(cell_text(c), c) for c in tr.find_all(["th", "td"], recursive=False)])
    return rows


def two_column_pairs(soup: BeautifulSoup) -> list[tuple[str, Cell]]:
    """(label, value cell) from every two-cell row (header-less grid tables, stub-column list-tables), and
    from definition lists ("Compute:" over its bullets), the chip pages' older layout."""
    pairs: list[tuple[str, Cell]] = [
        (row[0].text.rstrip(":"), row[1])
        for table in soup.find_all("table")
        for row in table_rows(table)
        if len(row) == 2 and row[0].text
    ]
    for term in soup.find_all("dt"):
        value = term.find_next_sibling("dd")
        if isinstance(value, Tag):
            pairs.append((normalise(term.get_text(" ", strip=True)).rstrip(":"), Cell(cell_text(value), value)))
    return pairs


def prose(soup: BeautifulSoup) -> str:
    """The main text, banners and navigation aside: paragraphs and bullets outside tables."""
    parts = [
        normalise(tag.get_text(" ", strip=True))
        for tag in soup.find_all(["p", "li"])
        if tag.find_parent(["table", "nav", "header", "footer"]) is None and tag.find("li") is None
    ]
    return " ; ".join(p for p in parts if p)
