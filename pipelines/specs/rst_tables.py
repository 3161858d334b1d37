"""Tables in a Sphinx page's reStructuredText source (`_sources/<page>.rst.txt`), as rows of cell texts.

Read when the rendered page lost a table: docutils drops a malformed `list-table` (rows longer than the header
row) from the HTML, while the source still carries every figure. Three constructs: the `list-table` directive
(`:header-rows:`, `* -` rows, cells continued on indented lines), grid tables (`+---+` borders, spanning cells
repeated over the columns they span) and simple tables (`===  ===` borders). Inline markup is reduced to its
text (`**Compute**` -> Compute, `:ref:`Trainium <t>`` -> Trainium) and footnote references are dropped.
A table whose rows cannot be told apart raises MalformedTable, naming the line and what was wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipelines.reading.sphinx import normalise

_LIST_TABLE = re.compile(r"^(?P<indent>\s*)\.\.\s+list-table::")
_OPTION = re.compile(r"^\s*:(?P<name>[\w-]+):\s*(?P<value>.*)$")
_ROW = re.compile(r"^\s*\*\s+-(?:\s+(?P<text>.*))?$")
_CELL = re.compile(r"^(?P<indent>\s*)-(?:\s+(?P<text>.*))?$")
_GRID_BORDER = re.compile(r"^\s*\+(?:[-=]+\+)+\s*$")
_SIMPLE_BORDER = re.compile(r"^\s*=+(?:\s+=+)+\s*$")
_ROLE = re.compile(r":[\w:-]+:`(?P<text>[^`<]*?)\s*(?:<[^`>]*>)?`")
_LINK = re.compile(r"`(?P<text>[^`<]+?)\s*<[^`>]*>`__?")
_FOOTNOTE = re.compile(r"\s*\[(?:#\w*|\*|\d+)\]_")


class MalformedTable(ValueError):
    """A table in the source that cannot be read as rows of cells; the message names the line."""


@dataclass
class RstTable:
    rows: list[list[str]]
    line: int  # 1-based line of the table's start, for messages
    header_rows: int = 0
    notes: list[str] = field(default_factory=list)  # what was tolerated, e.g. rows longer than the header


def inline_text(text: str) -> str:
    """Cell text without markup: roles and links keep their text, emphasis loses its stars, footnotes go."""
    text = _FOOTNOTE.sub("", text)
    text = _ROLE.sub(lambda m: m["text"], text)
    text = _LINK.sub(lambda m: m["text"], text)
    text = re.sub(r"\*\*(.+?)\*\*|\*(.+?)\*|``(.+?)``", lambda m: next(g for g in m.groups() if g), text)
    return normalise(text)


def tables(text: str) -> list[RstTable]:
    """Every list-table, grid table and simple table in the source, in the order they appear."""
    lines = text.expandtabs(8).splitlines()
    found: list[RstTable] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if _LIST_TABLE.match(line):
            table, index = _list_table(lines, index)
        elif _GRID_BORDER.match(line):
            table, index = _grid_table(lines, index)
        elif _SIMPLE_BORDER.match(line):
            table, index = _simple_table(lines, index)
        else:
            index += 1
            continue
        found.append(table)
    return found


def _block(lines: list[str], start: int, indent: int) -> int:
    """The index after the lines indented deeper than `indent` (blank lines inside the block included)."""
    end = start
    for index in range(start, len(lines)):
        if lines[index].strip() and len(lines[index]) - len(lines[index].lstrip()) <= indent:
            break
        end = index + 1
    return end


def _list_table(lines: list[str], start: int) -> tuple[RstTable, int]:
    indent = len(_LIST_TABLE.match(lines[start])["indent"])  # type: ignore[index]
    end = _block(lines, start + 1, indent)
    options: dict[str, str] = {}
    rows: list[list[list[str]]] = []  # row -> cell -> lines
    cell_indent = 0
    for number, line in enumerate(lines[start + 1 : end], start=start + 2):
        if not line.strip():
            continue
        option = _OPTION.match(line)
        if option and not rows:
            options[option["name"]] = option["value"].strip()
        elif row := _ROW.match(line):
            cell_indent = line.index("-")
            rows.append([[row["text"] or ""]])
        elif (cell := _CELL.match(line)) and rows and len(cell["indent"]) == cell_indent:
            rows[-1].append([cell["text"] or ""])
        elif rows and len(line) - len(line.lstrip()) > cell_indent:
            rows[-1][-1].append(line.strip())  # a cell's text continued on the next line
        else:
            raise MalformedTable(f"list-table at line {start + 1}: line {number} is not a '* -' row or a '-' cell")
    if not rows:
        raise MalformedTable(f"list-table at line {start + 1} has no '* -' rows")
    table = RstTable([[_cell_text(c) for c in row] for row in rows], start + 1, _header_rows(options, start))
    table.notes += _ragged(table)
    return table, end


def _cell_text(cell_lines: list[str]) -> str:
    """A cell's lines as one text; bullets inside a cell stay apart ("; "), as in the rendered page."""
    items: list[str] = []
    for line in cell_lines:
        bullet = re.match(r"^[*+-]\s+(.*)$", line)
        if bullet or not items:
            items.append(bullet[1] if bullet else line)
        else:
            items[-1] += " " + line
    return "; ".join(t for t in (inline_text(i) for i in items) if t)


def _header_rows(options: dict[str, str], start: int) -> int:
    value = options.get("header-rows", "0") or "0"
    if not value.isdigit():
        raise MalformedTable(f"list-table at line {start + 1}: :header-rows: {value!r} is not a number")
    return int(value)


def _ragged(table: RstTable) -> list[str]:
    """docutils refuses rows of unequal length (that is why the HTML lost the table). Rows longer than the header
    are read by position from the left, their surplus cells unlabelled, when every body row has the same length:
    a header cell was deleted. Body rows that disagree among themselves cannot be aligned: refused."""
    if table.header_rows > len(table.rows):
        raise MalformedTable(f"list-table at line {table.line}: {table.header_rows} header rows but {len(table.rows)}")
    body = {len(row) for row in table.rows[table.header_rows :]}
    if len(body) > 1:
        raise MalformedTable(f"list-table at line {table.line}: body rows have different cell counts {sorted(body)}")
    header = {len(row) for row in table.rows[: table.header_rows]}
    if not body or header <= body:
        return []
    return [
        f"list-table at line {table.line}: header rows of {sorted(header)} cells over body rows of {sorted(body)}; "
        "read by position from the left"
    ]


def _grid_table(lines: list[str], start: int) -> tuple[RstTable, int]:
    border = lines[start]
    columns = [i for i, char in enumerate(border) if char == "+"]
    end = start + 1
    while end < len(lines) and lines[end].strip()[:1] in ("|", "+"):
        end += 1
    rows: list[list[str]] = []
    header_rows = 0
    current: list[list[str]] = [[] for _ in columns[1:]]
    for number, line in enumerate(lines[start + 1 : end], start=start + 2):
        if _GRID_BORDER.match(line) or line.strip().startswith("+"):
            rows.append([_cell_text(c) for c in current])
            current = [[] for _ in columns[1:]]
            header_rows = len(rows) if "=" in line else header_rows
            continue
        if len(line.rstrip()) <= columns[-1]:
            raise MalformedTable(f"grid table at line {start + 1}: line {number} is shorter than the border")
        _grid_line(line, columns, current)
    return RstTable([r for r in rows if any(r)], start + 1, header_rows), end


def _grid_line(line: str, columns: list[int], current: list[list[str]]) -> None:
    """One text line of a grid table into its cells; a cell spanning columns is repeated over each of them."""
    span_start = 0
    for index in range(1, len(columns)):
        if line[columns[index]] != "|" and index < len(columns) - 1:
            continue  # no border here: the cell spans into the next column
        text = line[columns[span_start] + 1 : columns[index]].replace("|", " ").strip()
        for spanned in range(span_start, index):
            if text or current[spanned]:
                current[spanned].append(text)
        span_start = index


def _simple_table(lines: list[str], start: int) -> tuple[RstTable, int]:
    """Borders of '=' runs: opening, after the header (when there is one), closing (followed by a blank line)."""
    starts = [m.start() for m in re.finditer(r"=+", lines[start])]
    rows: list[list[str]] = []
    borders = [0]  # rows read before each border
    closed = False
    index = start + 1
    while index < len(lines) and not closed:
        line = lines[index]
        index += 1
        if _SIMPLE_BORDER.match(line):
            borders.append(len(rows))
            closed = index >= len(lines) or not lines[index].strip()
        elif line.strip():
            cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line) + 1], strict=True)]
            if not cells[0] and rows:  # a continuation line of the row above
                rows[-1] = [normalise(f"{old} {new}") for old, new in zip(rows[-1], cells, strict=True)]
            else:
                rows.append(cells)
    if not closed:
        raise MalformedTable(f"simple table at line {start + 1} has no closing '=' border")
    header_rows = borders[1] if len(borders) > 2 else 0
    return RstTable([[inline_text(c) for c in row] for row in rows], start + 1, header_rows), index
