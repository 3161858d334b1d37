"""Find an HTML table by what its headers mean, and read it as a plain grid.

Real pages reorder columns, add new ones, hang footnote marks on headers, span group labels across a whole
row and leave the instance-type cell empty on follow-on rows. This module absorbs all of that so adapters
speak only of semantic columns (`instance_type`, `on_demand`, ...).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from bs4 import BeautifulSoup, Tag

from pipelines.errors import CellError, MissingColumnError, ParseError, TableNotFoundError
from pipelines.fetch.encoding import decode_html
from pipelines.reading.grids import div_grids
from pipelines.reading.values import clean


@dataclass(frozen=True)
class Column:
    """A semantic column: the header patterns (regex, on lower-cased header text) that mean it."""

    key: str
    patterns: tuple[str, ...]
    required: bool = True
    fill_down: bool = False  # an empty cell repeats the value above (follow-on region rows)

    def matches(self, header: str) -> bool:
        return any(re.search(p, header) for p in self.patterns)


@dataclass
class Row:
    label: str
    cells: dict[str, str]

    def get(self, key: str) -> str | None:
        return self.cells.get(key)


@dataclass
class HeaderTable:
    headers: list[str]
    columns: dict[str, int]
    body: list[list[str]] = field(repr=False)
    fill_down: frozenset[str] = frozenset()

    @property
    def fingerprint(self) -> str:
        """The table's shape: a hash of its headers in order. A new one means the page was redesigned."""
        return shape_fingerprint(self.headers)

    def header_of(self, key: str) -> str:
        return self.headers[self.columns[key]]

    def rows(self, label_key: str) -> Iterator[Row]:
        carried: dict[str, str] = {}
        for raw in self.body:
            cells = {key: raw[index] if index < len(raw) else "" for key, index in self.columns.items()}
            for key in self.fill_down:
                if cells[key]:
                    carried[key] = cells[key]
                else:
                    cells[key] = carried.get(key, "")
            yield Row(label=cells.get(label_key) or "?", cells=cells)


def shape_fingerprint(parts: Sequence[str]) -> str:
    return hashlib.sha256("\x1f".join(p.lower() for p in parts).encode()).hexdigest()[:16]


def soup_of(body: bytes, charset: str | None = None) -> BeautifulSoup:
    """The page as a tree. `charset`, the HTTP Content-Type's, outranks a <meta> charset (pipelines.fetch.encoding)."""
    # Decoded here, not by BeautifulSoup: given text, lxml no longer acts on the page's own <meta> charset.
    return BeautifulSoup(decode_html(body, charset), "lxml")


def cell_text(cell: Tag) -> str:
    for footnote in cell.find_all("sup"):
        footnote.decompose()
    return clean(cell.get_text(" ", strip=True))


def _span(cell: Tag, name: str) -> int:
    try:
        return max(1, int(str(cell.get(name, "1")).strip() or 1))
    except ValueError:
        return 1


def grid(table: Tag) -> tuple[list[list[str]], list[bool]]:
    """Expand rowspan/colspan into a rectangular grid; also say which rows are a single spanning cell."""
    rows: list[list[str]] = []
    spanning: list[bool] = []
    pending: dict[tuple[int, int], str] = {}
    own = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
    for r, tr in enumerate(own):
        out: list[str] = []
        cells = tr.find_all(["td", "th"], recursive=False)
        c = 0
        for cell in cells:
            while (r, c) in pending:
                out.append(pending.pop((r, c)))
                c += 1
            # Clamped as browsers do (colspan <= 1000; no row beyond the table's), so `rowspan="9999999"` is no bomb.
            text, colspan, rowspan = (
                cell_text(cell),
                min(_span(cell, "colspan"), 1000),
                min(_span(cell, "rowspan"), len(own) - r),
            )
            for dc in range(colspan):
                out.append(text)
                for dr in range(1, rowspan):
                    pending[(r + dr, c + dc)] = text
            c += colspan
        while (r, c) in pending:
            out.append(pending.pop((r, c)))
            c += 1
        rows.append(out)
        spanning.append(len(cells) == 1 and _span(cells[0], "colspan") > 1)
    return rows, spanning


def _header_index(table: Tag, rows: list[list[str]]) -> int:
    # Only this table's own rows, as grid() counts them: a table nested in a header must not shift the index.
    own = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
    in_head = [i for i, tr in enumerate(own) if getattr(tr.find_parent(["thead", "table"]), "name", None) == "thead"]
    if in_head:
        return in_head[-1]
    for index, tr in enumerate(own):
        cells = tr.find_all(["td", "th"], recursive=False)
        if cells and all(c.name == "th" for c in cells) and len(cells) > 1:
            return index
    return 0


def matched(headers: Sequence[str], columns: Sequence[Column]) -> tuple[dict[str, int], list[str]]:
    """Each column's index among the headers (a header means one column at most), and the required ones missing."""
    found: dict[str, int] = {}
    for column in columns:
        for index, header in enumerate(h.lower() for h in headers):
            if index not in found.values() and column.matches(header):
                found[column.key] = index
                break
    return found, [c.key for c in columns if c.required and c.key not in found]


def header_table(headers: list[str], body: list[list[str]], columns: Sequence[Column]) -> HeaderTable | None:
    """A grid read elsewhere (a table carried as embedded JSON) as a HeaderTable, if it carries every required
    column; else None."""
    found, missing = matched(headers, columns)
    return None if missing else _table(headers, found, [row for row in body if any(row)], columns)


def _table(headers: list[str], found: dict[str, int], body: list[list[str]], columns: Sequence[Column]) -> HeaderTable:
    fill = frozenset(c.key for c in columns if c.fill_down and c.key in found)
    return HeaderTable(headers=headers, columns=found, body=body, fill_down=fill)


def locate(soup: BeautifulSoup, columns: Sequence[Column], source_id: str) -> HeaderTable:
    """The table whose headers carry every required column (a `<table>`, else a grid drawn with `<div>`s); else a
    typed error naming what is missing."""
    best: tuple[int, list[str], list[str]] | None = None
    for table in soup.find_all("table"):
        rows, spanning = grid(table)
        if not rows:
            continue
        head = _header_index(table, rows)
        headers = rows[head]
        found, missing = matched(headers, columns)
        if not missing:
            body = [row for i, row in enumerate(rows[head + 1 :], start=head + 1) if not spanning[i] and any(row)]
            return _table(headers, found, body, columns)
        score = len(found)  # columns this table actually carries (unmatched optional ones earn nothing)
        if best is None or score > best[0]:
            best = (score, missing, headers)
    # No <table> carries them: a table drawn with <div>s (or ARIA roles), found by its structure (grids.py).
    for rows in div_grids(soup):
        headers = rows[0]
        found, missing = matched(headers, columns)
        if not missing:
            return _table(headers, found, [row for row in rows[1:] if any(row)], columns)
        if found and (best is None or len(found) > best[0]):
            best = (len(found), missing, headers)
    if best is None or best[0] == 0:
        wanted = ", ".join(c.key for c in columns if c.required)
        raise TableNotFoundError(source_id, f"columns meaning {wanted}")
    raise MissingColumnError(source_id, best[1], best[2])


T = TypeVar("T")


def read_cell(row: Row, table: HeaderTable, key: str, source_id: str, read: Callable[[str | None], T]) -> T:
    """Apply a cell parser; a cell it cannot read becomes a typed error naming row and column."""
    try:
        return read(row.get(key))
    except ValueError as exc:
        raise CellError(source_id, row.label, table.header_of(key), str(exc)) from exc


def refuse_duplicates(source_id: str, names: Sequence[str], where: str) -> None:
    """A name listed twice would be two versions of one business key: refuse the page, naming them."""
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ParseError(source_id, f"listed twice in {where}: {duplicates}")


def row_key(row: Row, table: HeaderTable, key: str, source_id: str) -> str:
    """The row's identifying cell (the instance type), lower-cased; an empty one is a typed error."""
    value = row.get(key) or ""
    if not value:
        raise CellError(source_id, row.label, table.header_of(key), "empty identifying cell")
    return value.lower()
