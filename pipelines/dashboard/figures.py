"""Figures as the pages show them: SQL that turns a DECIMAL into text at a stated precision in DuckDB, so no page
prints `0E-10` or eighteen places, and no figure passes through a float on its way."""

from __future__ import annotations

TIME = "strftime({col} AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S UTC')"


def four_places(column: str) -> str:
    """A DECIMAL as text at 4 places, half up."""
    return f"CAST(CAST({column} AS DECIMAL(38, 4)) AS VARCHAR)"


def trimmed(column: str, places: int) -> str:
    """A DECIMAL rounded to `places` as text without trailing zeros (16.000000 -> 16, 37.252903 -> 37.25)."""
    return f"rtrim(rtrim(CAST(CAST({column} AS DECIMAL(38, {places})) AS VARCHAR), '0'), '.')"


def as_printed(column: str) -> str:
    """A price exactly, without the storage scale's zeros but never fewer than cents (20.000000 -> 20.00)."""
    fraction = f"split_part(rtrim(CAST({column} AS VARCHAR), '0'), '.', 2)"
    whole = f"split_part(CAST({column} AS VARCHAR), '.', 1)"
    return f"{whole} || '.' || CASE WHEN length({fraction}) < 2 THEN rpad({fraction}, 2, '0') ELSE {fraction} END"
