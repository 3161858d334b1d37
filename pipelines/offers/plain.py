"""Rows as exact JSON values: a Decimal as fixed-point text (never a float), a time as ISO 8601, the rest as is."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any


def exact(value: Any) -> Any:
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


def exact_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{name: exact(value) for name, value in row.items()} for row in rows]
