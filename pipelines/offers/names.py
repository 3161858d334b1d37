"""What a search's names stand for: an accelerator by any name the catalog gives it (`accelerator_names`), a region
by its code or location name, a price kind by its family, a provider by its display name. A name nothing stands
for is refused, naming the nearest ones held."""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches
from typing import TYPE_CHECKING

from schemas.regions import aws_regions

if TYPE_CHECKING:  # the CLI imports UnknownName at start-up, which must not load DuckDB
    import duckdb

KIND_FAMILIES = (
    "on_demand",
    "spot",
    "capacity_block",
    "reserved",
    "savings_plan",
    "serverless",
    "sagemaker",
    "community",
)
ANY = ("any", "all")


class UnknownName(ValueError):
    """A search names an accelerator, region, kind or provider the warehouse holds nothing under."""


def spelled(text: str) -> str:
    """The way names are compared: case and runs of spaces ignored."""
    return " ".join(text.split()).lower()


def nearest(asked: str, names: Iterable[str]) -> list[str]:
    """Up to five held names closest to `asked` (case ignored), as they are spelled, closest first."""
    by_spelling = {spelled(name): name for name in names if name}
    return [by_spelling[n] for n in get_close_matches(spelled(asked), sorted(by_spelling), n=5, cutoff=0.5)]


def refused(what: str, asked: str, names: Iterable[str]) -> UnknownName:
    held = sorted({n for n in names if n})
    near = nearest(asked, held)
    shown = near or held[:8]
    return UnknownName(f"unknown {what} {asked!r}; {'nearest' if near else 'known'}: {', '.join(shown) or 'none'}")


def known_accelerator(con: duckdb.DuckDBPyConnection, asked: str) -> str:
    """`asked` as the catalog compares it; an unknown name is refused with the nearest names."""
    names = [name for (name,) in con.execute("SELECT DISTINCT name FROM accelerator_names").fetchall()]
    if spelled(asked) not in {spelled(n) for n in names}:
        raise refused("accelerator", asked, names)
    return spelled(asked)


def known_region(con: duckdb.DuckDBPyConnection, asked: str) -> str | None:
    """The region as searches compare it (lower case; a location name as its AWS code), or None for any region."""
    if spelled(asked) in ANY:
        return None
    codes = {spelled(r.region_code): r.region_code for r in aws_regions()}
    locations = {spelled(name): r.region_code for r in aws_regions() for name in (r.location, *r.aliases)}
    printed = con.execute(
        "SELECT DISTINCT region FROM accelerator_offers WHERE region IS NOT NULL "
        "UNION SELECT DISTINCT region_code FROM accelerator_offers WHERE region_code IS NOT NULL"
    ).fetchall()
    held = {spelled(r): r for (r,) in printed}
    wanted = spelled(asked)
    if wanted in locations:
        return spelled(locations[wanted])
    if wanted in codes or wanted in held:
        return wanted
    raise refused("region", asked, [*codes.values(), *(r.location for r in aws_regions()), *held.values()])


def known_kind(con: duckdb.DuckDBPyConnection, asked: str) -> tuple[str, str] | None:
    """(column, value) a price kind is matched on: a family (savings plans -> savings_plan) or one exact kind
    (reserved_3y); None for every kind."""
    wanted = "_".join(spelled(asked).replace("-", " ").split())
    if wanted in ANY:
        return None
    for family in KIND_FAMILIES:
        if wanted in (family, family + "s"):
            return "price_kind_family", family
    kinds = [k for (k,) in con.execute("SELECT DISTINCT price_kind FROM accelerator_offers").fetchall()]
    if wanted in kinds:
        return "price_kind", wanted
    raise refused("price kind", asked, [*KIND_FAMILIES, *kinds, "all"])


def known_provider(con: duckdb.DuckDBPyConnection, asked: str) -> str:
    providers = [p for (p,) in con.execute("SELECT DISTINCT provider FROM accelerator_offers").fetchall()]
    if spelled(asked) not in {spelled(p) for p in providers}:
        raise refused("provider", asked, providers)
    return spelled(asked)
