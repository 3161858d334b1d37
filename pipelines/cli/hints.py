"""Hints that name what a user may have meant, from the names the warehouse does hold."""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches


def nearest_names(asked: str, names: Iterable[str]) -> list[str]:
    """Up to three held names closest to `asked` (case ignored), closest first; none when nothing is near."""
    return get_close_matches(asked.lower(), sorted({n.lower() for n in names if n}), n=3, cutoff=0.8)
