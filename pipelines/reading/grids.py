"""Tables drawn with `<div>`s instead of `<table>`: found by their structure, read as the same plain grid.

Pricing pages increasingly render a table as nested `<div>`s that only CSS lays out as rows and columns, so the
`<table>` reader in `tables.py` never sees it. Class names say nothing reliable (they are generated, renamed on
every redesign, and mean nothing to a parser), nor does nesting depth, so a grid is recognised here only by what
makes it a table to a reader: repeated rows of the same number of cells, and a header over them.

Shapes recognised, each a list of rows (header row first) of whitespace-normalised cell texts:
- ARIA tables: an element with `role="table"`/`"grid"`/`"treegrid"`; its rows are the `role="row"` elements whose
  nearest such table is it, and a row's cells the `cell`/`gridcell`/`columnheader`/`rowheader` elements whose
  nearest row is it. The first non-empty row is the header.
- Repeated siblings: a container most of whose direct children (at least two, more than half) are "rows" with the
  same number (two or more) of cells, a row's cells being its direct element children after stepping through
  wrappers that hold a single element and no text of their own (a list item wrapping its row, a cell wrapping
  `<div><p>`). Children with another cell count (a card cut short, a stray caption) are left out, never merged.
  The header is, in this order:
  - a header row just before the body (its previous sibling, or that of a wrapper holding the body alone) with
    the same number of cells, itself bare or inside a wrapper (a head container beside a body container);
  - a run of as many heading-like siblings just before the body (one tag, each with text and no cells of its own);
  - else the body's first non-empty row.

Parts of a real `<table>` are left to `tables.py`, and rows that carry ARIA roles to the ARIA reading, so no grid
is reported twice. Pages hold many such repeated structures that are no price table (menus, cards, footers):
these are candidates, and the adapter keeps the one whose headers mean its columns (`tables.matched`). One pass
over the elements computes every element's cell count; each container is then judged from its own children.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from itertools import islice

from bs4 import BeautifulSoup, Tag
from bs4.element import CData, NavigableString

from pipelines.reading.values import clean

Grid = list[list[str]]

_ARIA_TABLES = {"table", "grid", "treegrid"}
_ARIA_CELLS = {"cell", "gridcell", "columnheader", "rowheader"}
_TABLE_PARTS = {"table", "thead", "tbody", "tfoot", "tr"}  # read by tables.py
_UNREAD = {"sup", "script", "style", "template", "noscript"}  # footnote marks (as tables.py drops them), code


def _role(el: Tag) -> str:
    role = el.get("role")
    return role.strip().lower() if isinstance(role, str) else ""


def _text(el: Tag) -> str:
    """The element's whole text, normalised, without footnote marks, comments or code; the tree is not changed."""
    parts: list[str] = []
    stack: list[object] = [el]
    while stack:
        node = stack.pop()
        if isinstance(node, Tag):
            if node.name not in _UNREAD:
                stack.extend(reversed(node.contents))
        elif _is_text(node):
            parts.append(str(node))
    return clean(" ".join(parts))


def _is_text(node: object) -> bool:
    """Text a reader sees: not a comment, doctype or declaration (subclasses of NavigableString)."""
    return type(node) in (NavigableString, CData)


def _own_text(el: Tag) -> bool:
    return any(_is_text(c) and str(c).strip() for c in el.contents)


class _Shape:
    """Every element's element children and its cells (the children of its innermost single-element wrapper)."""

    def __init__(self, elements: list[Tag]) -> None:
        self.kids: dict[int, list[Tag]] = {id(el): [c for c in el.contents if isinstance(c, Tag)] for el in elements}
        self.cells: dict[int, list[Tag]] = {}
        self.span: dict[int, tuple[int, int]] = {}  # document positions of the element and of its last descendant
        for index in range(len(elements) - 1, -1, -1):  # a child comes after its parent: computed first
            el = elements[index]
            kids = self.kids[id(el)]
            single = len(kids) == 1 and not _own_text(el)
            self.cells[id(el)] = self.cells.get(id(kids[0]), []) if single else kids
            self.span[id(el)] = (index, self.span[id(kids[-1])][1] if kids else index)

    def count(self, el: Tag) -> int:
        return len(self.cells.get(id(el), []))

    def rows(self, container: Tag) -> list[Tag]:
        """The children sharing one cell count (>= 2), if at least two and more than half of them; else none."""
        kids = self.kids.get(id(container), [])
        counts = Counter(n for n in map(self.count, kids) if n >= 2)
        if not counts:
            return []
        n, times = counts.most_common(1)[0]
        return [k for k in kids if self.count(k) == n] if times >= 2 and 2 * times > len(kids) else []

    def row_texts(self, row: Tag) -> list[str]:
        return [_text(cell) for cell in self.cells.get(id(row), [])]


def _previous(el: Tag, limit: int) -> list[Tag]:
    """Up to `limit` element siblings just before `el`, nearest first."""
    return list(islice((s for s in el.previous_siblings if isinstance(s, Tag)), limit))


def _header(shape: _Shape, container: Tag, n: int) -> list[str] | None:
    """The header row just before the body container (see the module docstring), or None."""
    body: Tag = container
    while not _previous(body, 1) and isinstance(body.parent, Tag) and len(shape.kids.get(id(body.parent), [])) == 1:
        if _own_text(body.parent):
            break
        body = body.parent
    before = _previous(body, n)
    if not before:
        return None
    holder = before[0]
    if shape.count(holder) == n and not shape.rows(holder):
        texts = shape.row_texts(holder)
        return texts if any(texts) else None
    run = list(reversed(before[:n]))
    if len(run) == n and len({el.name for el in run}) == 1 and all(shape.count(el) < 2 for el in run):
        texts = [_text(el) for el in run]
        return texts if all(texts) else None
    return None


def _structural(shape: _Shape, container: Tag) -> tuple[Grid, bool]:
    """The container's grid (or []), and whether its header was found apart from its rows."""
    rows = shape.rows(container)
    if not rows or container.name in _TABLE_PARTS or any(_role(r) == "row" for r in rows):
        return [], False
    body = [texts for texts in map(shape.row_texts, rows) if any(texts)]
    header = _header(shape, container, shape.count(rows[0]))
    grid = [header, *body] if header else body
    return (grid, header is not None) if len(grid) >= 2 else ([], False)


def _nearest(el: Tag, roles: set[str]) -> Tag | None:
    for parent in el.parents:
        if isinstance(parent, Tag) and _role(parent) in roles:
            return parent
    return None


def _aria(table: Tag) -> Grid:
    rows: Grid = []
    for row in table.find_all(True, attrs={"role": True}):
        if isinstance(row, Tag) and _role(row) == "row" and _nearest(row, _ARIA_TABLES) is table:
            cells = [
                _text(cell)
                for cell in row.find_all(True, attrs={"role": True})
                if isinstance(cell, Tag) and _role(cell) in _ARIA_CELLS and _nearest(cell, {"row"}) is row
            ]
            if any(cells):
                rows.append(cells)
    return rows if len(rows) >= 2 else []


def div_grids(soup: BeautifulSoup) -> list[Grid]:
    """Candidate grids in the page's non-`<table>` markup, in document order: each its header row, then at least
    one body row, of normalised cell texts. A page of prose gives none.

    A grid whose cells hold a table at least as long as itself (a `<table>`, an ARIA table, or a grid whose header
    row stands apart from its body) is page layout around tables, not a table, and is left out: its "cells" would
    be whole tables' text. A small headed grid inside a long one's cell (a label over a value) leaves it be."""
    elements = [el for el in soup.find_all(True) if isinstance(el, Tag)]
    shape = _Shape(elements)
    found: list[tuple[Tag, Grid]] = []
    tables: list[tuple[int, int]] = []  # document position and row count of each table and headed grid, in order
    for el in elements:
        if el.name == "table":
            tables.append((shape.span[id(el)][0], len(el.find_all("tr"))))
            continue
        if _role(el) in _ARIA_TABLES:
            grid, apart = _aria(el), True
        elif len(shape.kids[id(el)]) >= 2:
            grid, apart = _structural(shape, el)
        else:
            continue
        if grid:
            found.append((el, grid))
            if apart:
                tables.append((shape.span[id(el)][0], len(grid)))
    starts = [start for start, _ in tables]
    grids: list[Grid] = []
    for el, grid in found:
        start, end = shape.span[id(el)]
        inside = tables[bisect_right(starts, start) : bisect_right(starts, end)]
        if all(rows < len(grid) for _, rows in inside):
            grids.append(grid)
    return grids
