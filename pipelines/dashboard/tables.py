"""A table as the templates draw it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Table:
    """Column names and text cells (figures keep DuckDB's DECIMAL digits)."""

    id: str
    columns: list[str]
    rows: list[list[str]]
