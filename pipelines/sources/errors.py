"""Why a sources file cannot be used, as one SourcesFileError naming the file, the line and the field.

tomllib puts the position in its message and pydantic gives a path of keys and list indexes: both become the
line a user opens the file at, found in the TOML text (the parsed data no longer knows its lines).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pipelines.errors import SourcesFileError

TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
TOML_AT_END = " (at end of document)"
TABLE_HEADER = re.compile(r"^\s*\[")
ENTRY_HEADER = re.compile(r"^\s*\[\[\s*sources\s*\]\]")
PROBLEM_FOR_TYPE = {"missing": "required, but missing", "extra_forbidden": "not a known field"}


def unreadable(path: Path, exc: OSError | UnicodeDecodeError) -> SourcesFileError:
    if isinstance(exc, UnicodeDecodeError):
        return SourcesFileError(str(path), f"is not UTF-8 text (byte {exc.start})")
    reason = "does not exist" if isinstance(exc, FileNotFoundError) else f"cannot be read: {exc.strerror or exc}"
    return SourcesFileError(str(path), reason)


def toml_syntax(path: Path, text: str, exc: tomllib.TOMLDecodeError) -> SourcesFileError:
    message = str(exc)
    line = column = None
    if position := TOML_POSITION.search(message):
        line, column = int(position[1]), int(position[2])
        message = message[: position.start()]
    elif message.endswith(TOML_AT_END):  # the document stopped mid-value: point past its last character
        lines = text.splitlines() or [""]
        line, column = len(lines), len(lines[-1]) + 1
        message = message.removesuffix(TOML_AT_END)
    return SourcesFileError(str(path), f"TOML syntax error: {message}", line=line, column=column)


def invalid_fields(path: Path, text: str, data: dict[str, Any], exc: ValidationError) -> SourcesFileError:
    """The first problem pydantic found (in file order: top-level tables, then the entries), and how many more."""
    errors = without_copied_defaults(exc.errors())
    loc, lines = errors[0]["loc"], text.splitlines()
    problem = PROBLEM_FOR_TYPE.get(errors[0]["type"], errors[0]["msg"].removeprefix("Value error, "))
    if len(loc) >= 2 and loc[0] == "sources" and isinstance(loc[1], int):
        index, keys = loc[1], [str(k) for k in loc[2:]]
        who = f"source {source_name(data, index)}"
        line = entry_line(lines, index, keys[0] if keys else None)
    else:
        keys = [str(k) for k in loc]
        who, line = "top level", top_level_line(lines, keys)
    field = ".".join(keys)
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return SourcesFileError(
        str(path), f"{who}, field {field or '(entry)'}: {problem}{more}", line=line, field=field or None
    )


def without_copied_defaults(errors: list[Any]) -> list[Any]:
    """A bad top-level `[drift]` or `[fx]` value is copied into every source: report it once, at the top level."""
    top = {(e["loc"][0], tuple(e["loc"][1:]), e["msg"]) for e in errors if e["loc"][:1] in (("drift",), ("fx",))}
    return [
        e
        for e in errors
        if not (
            e["loc"][:1] == ("sources",) and len(e["loc"]) > 2 and (e["loc"][2], tuple(e["loc"][3:]), e["msg"]) in top
        )
    ]


def source_name(data: dict[str, Any], index: int) -> str:
    """Its id when it has a usable one, else its position (1-based, as a reader counts entries)."""
    entry = data.get("sources", [])[index]
    source_id = entry.get("id") if isinstance(entry, dict) else None
    return f"{source_id!r} (entry {index + 1})" if isinstance(source_id, str) else f"entry {index + 1}"


def key_pattern(key: str, table: str) -> re.Pattern[str]:
    """`key = ...`, `"key" = ...`, `key.sub = ...`, or a `[table.key]` header."""
    quoted = re.escape(key)
    return re.compile(rf'^\s*(?:(?:{quoted}|"{quoted}")\s*[=.]|\[\s*{re.escape(table)}{quoted}\s*\])')


def entry_line(lines: list[str], index: int, key: str | None) -> int | None:
    """Line of the key in the index-th `[[sources]]` entry, or of the entry's header when the key is not there."""
    headers = [n for n, text in enumerate(lines) if ENTRY_HEADER.match(text)]
    if index >= len(headers):  # entries written as an inline array: no header of their own
        return None
    start = headers[index]
    end = next(
        (
            n
            for n in range(start + 1, len(lines))
            if TABLE_HEADER.match(lines[n]) and not lines[n].lstrip().startswith("[sources.")
        ),
        len(lines),
    )
    if key is not None:
        wanted = key_pattern(key, "sources.")
        found = next((n for n in range(start + 1, end) if wanted.match(lines[n])), None)
        if found is not None:
            return found + 1
    return start + 1


def top_level_line(lines: list[str], keys: list[str]) -> int | None:
    """Line of a top-level `key = ...` (before the first table), or of the key inside its `[table]`."""
    if not keys:
        return None
    first_table = next((n for n, text in enumerate(lines) if TABLE_HEADER.match(text)), len(lines))
    assigned = key_pattern(keys[0], "")
    found = next((n for n in range(first_table) if assigned.match(lines[n])), None)
    header = re.compile(rf"^\s*\[\[?\s*{re.escape(keys[0])}\s*\]")
    table = next((n for n, text in enumerate(lines) if header.match(text)), None)
    if found is None and table is not None:
        found = table_key_line(lines, table, keys[1]) if len(keys) > 1 else table
    return None if found is None else found + 1


def table_key_line(lines: list[str], header: int, key: str) -> int:
    """The key's line inside the table whose header is at `header`, or the header's."""
    wanted = key_pattern(key, "")
    for n in range(header + 1, len(lines)):
        if TABLE_HEADER.match(lines[n]):
            break
        if wanted.match(lines[n]):
            return n
    return header
