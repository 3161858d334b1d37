"""Tables a page carries as embedded JSON instead of HTML: read into the same header-and-rows grid as an HTML table.

AWS's pricing pages render their tables in the browser from `<script type="application/json">` blocks (documented
by koyakimu/ec2-capacity-blocks-for-ml-pricing-json's parser, which tracks the live Capacity Blocks page). Two
shapes are known, each an object among the block's items:
- since April 2026: `itemHeading`, `itemTableColumns` (each column's `Heading` and `accessor`), `itemTableRowGroups`
  (each row group's `id` and `label`) and `itemTableData` (each row's cells by accessor, its group in `idProperty`),
  the last three as JSON strings;
- before: `jsonData`, a JSON string holding `heading` and `table` (`rowDefinitions`, `items`, and `columns` where the
  page gives them).

A row's first column, when the row itself leaves it out, is its group's label (the instance type). Cells hold HTML
fragments (`<p>US East (Ohio)</p>`): their text is read. A table whose columns carry no headings cannot be read by
meaning and is reported, never guessed by position.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bs4 import BeautifulSoup

from pipelines.reading.values import clean


@dataclass(frozen=True)
class EmbeddedTable:
    heading: str
    headers: list[str]
    rows: list[list[str]]


def embedded_tables(soup: BeautifulSoup) -> tuple[list[EmbeddedTable], list[str]]:
    """Every table the page's JSON blocks carry, and why any other table-shaped object was not read."""
    tables: list[EmbeddedTable] = []
    unread: list[str] = []
    for script in soup.find_all("script", attrs={"type": "application/json"}):
        try:
            document = json.loads(script.string or "")
        except json.JSONDecodeError:
            continue  # a block that is not JSON carries no table
        for fields in _objects(document):
            read = _table_of(fields)
            if isinstance(read, EmbeddedTable):
                tables.append(read)
            elif read:
                unread.append(read)
    return tables, unread


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every object in the document, depth first: the tables sit at no fixed depth."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from _objects(value)


def _table_of(fields: dict[str, Any]) -> EmbeddedTable | str | None:
    """The object's table; a reason when it is table-shaped but unreadable; None when it is no table."""
    if "itemTableData" in fields:
        heading = _text(fields.get("itemHeading"))
        columns = _loaded(fields.get("itemTableColumns"))
        return _table(heading, columns, _loaded(fields.get("itemTableRowGroups")), _loaded(fields.get("itemTableData")))
    if "jsonData" in fields:
        data = _loaded(fields.get("jsonData"))
        if not isinstance(data, dict) or not isinstance(data.get("table"), dict):
            return None
        table = data["table"]
        heading = _text(data.get("heading"))
        return _table(heading, table.get("columns"), table.get("rowDefinitions"), table.get("items"))
    return None


def _table(heading: str, columns: Any, groups: Any, items: Any) -> EmbeddedTable | str | None:
    if not isinstance(items, list):
        return None
    named = [(_heading(c), str(c.get("accessor", ""))) for c in columns or [] if isinstance(c, dict)]
    named = [(h, accessor) for h, accessor in named if h and accessor]
    if not named:
        return f"embedded table {heading!r}: its columns carry no headings, so none can be read by meaning"
    labels = {str(g.get("id")): _text(g.get("label")) for g in groups or [] if isinstance(g, dict)}
    rows = []
    for item in (i for i in items if isinstance(i, dict)):
        cells = [_text(item.get(accessor)) for _, accessor in named]
        if not cells[0]:  # the row's first column is its group's label
            cells[0] = labels.get(str(item.get("idProperty")), "")
        rows.append(cells)
    return EmbeddedTable(heading, [h for h, _ in named], rows)


def _heading(column: dict[str, Any]) -> str:
    return _text(next((column[k] for k in ("Heading", "heading", "Header", "header", "label") if k in column), ""))


def _loaded(value: Any) -> Any:
    """A JSON string decoded (the shapes nest JSON in strings), anything else as it is."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return None


def _text(value: Any) -> str:
    """A cell's text: an HTML fragment's words, whitespace collapsed."""
    if value is None:
        return ""
    text = str(value)
    if "<" in text:
        text = BeautifulSoup(text, "lxml").get_text(" ", strip=True)
    return clean(text)
