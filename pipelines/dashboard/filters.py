"""The filters a page keeps in its address: which rows of its tables and which points of its charts a reader sees.

Every page filters by the same names (price kind, region, accelerator, provider), so a link reads the same way
everywhere; each page offers the values its own rows hold. `static/filters.js` applies them in the browser.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

HOURS = {"hour": 1, "day": 24, "month": 730}  # a month is AWS's: 730 hours
ALL = "all"


@dataclass(frozen=True)
class Filter:
    """One filter: its URL parameter, the row field it tests, its label, its choices and its default."""

    name: str
    field: str
    label: str
    choices: list[str]
    default: str


# (URL parameter, field, label): the field is a column of a filtered table and a field of a filtered chart's points.
NAMED = (
    ("kind", "price_kind_family", "price kind"),
    ("region", "region", "region"),
    ("accelerator", "accelerator", "accelerator"),
    ("provider", "provider", "provider"),
)
FILTER_FIELDS = tuple(field for _, field, _ in NAMED)


def filters_of(rows: Iterable[dict[str, str]], *, kind: str = ALL, leave_out: tuple[str, ...] = ()) -> list[Filter]:
    """The named filters over these rows, each offering "all" and every value the rows hold; `kind` is the price
    kind's default (on-demand where a page compares offers, all where it follows them over time)."""
    named = [(name, field, label) for name, field, label in NAMED if name not in leave_out]
    held: dict[str, set[str]] = {field: set() for _, field, _ in named}
    for row in rows:
        for field, values in held.items():
            values.add(row[field])
    return [
        Filter(name, field, label, [ALL, *sorted(held[field])], kind if name == "kind" else ALL)
        for name, field, label in named
    ]
