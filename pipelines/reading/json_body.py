"""Reading a JSON response body for the API adapters: exact numbers, and one typed error for bad input."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from pipelines.errors import ParseError


def _no_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def load_json(body: bytes, source_id: str) -> Any:
    """Numbers become Decimal exactly as written (float noise stays visible); NaN/Infinity are refused."""
    try:
        return json.loads(body, parse_float=Decimal, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise ParseError(source_id, f"response is not valid JSON: {exc}") from exc


def json_number(value: Any) -> Decimal | None:
    """A JSON number as the exact Decimal load_json read; None for anything else (a string, null, true/false)."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        return None
    return Decimal(value)


def list_at(document: Any, key: str, source_id: str) -> list[Any]:
    """The list an answer holds at its top-level `key` (`offers`, `items`); a ParseError naming the key otherwise."""
    found = document.get(key) if isinstance(document, dict) else None
    if not isinstance(found, list):
        raise ParseError(source_id, f"response has no list at key {key}")
    return found


def exact_json(value: Any) -> str:
    """JSON text with each Decimal written as the exact number it holds (json.dumps would need floats)."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(key)}:{exact_json(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(exact_json(item) for item in value) + "]"
    return json.dumps(value)
