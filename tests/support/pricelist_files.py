"""Helpers for the price-list tests: the bundled samples, and copies of them with rows rewritten."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

from pipelines.sources.locations import SAMPLES_DIR

PRICELIST = SAMPLES_DIR / "aws" / "pricelist"
SPOT = SAMPLES_DIR / "aws" / "spot" / "spot.json"
Row = dict[str, str]


def sample(region: str) -> Path:
    return PRICELIST / f"{region}.csv"


def read_sample(region: str) -> tuple[list[str], list[str], list[Row]]:
    """(the five metadata lines, the header, the rows as dicts) of one sample."""
    with open(sample(region), encoding="utf-8", newline="") as text:
        lines = text.readlines()
    header = next(csv.reader([lines[5]]))
    rows = [dict(zip(header, cells, strict=True)) for cells in csv.reader(lines[6:])]
    return lines[:5], header, rows


def _quoted(cells: list[str]) -> str:
    return ",".join('"' + c.replace('"', '""') + '"' if c else "" for c in cells) + "\n"


def write_rows(path: Path, meta: list[str], header: list[str], rows: list[Row]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.writelines(meta)
        out.write(_quoted(header))
        out.writelines(_quoted([row.get(name, "") for name in header]) for row in rows)
    return path


def kept_row(row: Row, instance_type: str) -> bool:
    """The one Linux/Shared/Used on-demand row of a type, the row the filters keep."""
    return (
        row["Instance Type"] == instance_type
        and row["TermType"] == "OnDemand"
        and row["Tenancy"] == "Shared"
        and row["Operating System"] == "Linux"
        and row["CapacityStatus"] == "Used"
        and row["Pre Installed S/W"] == "NA"
        and row["MarketOption"] == "OnDemand"
    )


def rewritten(tmp: Path, region: str, match: Callable[[Row], bool], **changes: str) -> Path:
    """A copy of a sample with `changes` (by header name; underscores for spaces) applied to matching rows."""
    meta, header, rows = read_sample(region)
    by_name = {name.replace(" ", "_").replace("/", "_"): name for name in header}
    for row in rows:
        if match(row):
            row.update({by_name[key]: value for key, value in changes.items()})
    return write_rows(tmp / f"{region}.csv", meta, header, rows)
