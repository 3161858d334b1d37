"""Google's Cloud TPU version pages, read from their Markdown source (docs.cloud.google.com/tpu/docs/v6e.md.txt):
one ChipSpec a page, vendor Google.

The page's key specifications are a two-column Markdown table (`| Specification | Values |`), rendered here with
markdown-it and read row by row by what each label says:
- "Peak compute per chip (bf16)" is a compute figure in the format the parentheses name (bf16, Int8, fp8), value
  and unit as printed ("918 TFLOPs", "1836 TOPs");
- "HBM capacity per chip" is the chip's memory ("32 GB") and "HBM bandwidth per chip" its bandwidth ("1638 GBps");
  pages of older versions print both in one row ("HBM2e capacity and bandwidth | 95 GB, 2765 GBps").

Rows per Pod or per host (DRAM per host, BF16 peak compute per Pod) are not the chip's and are not read. Google
prints its TPU figures without sparsity; a label that names sparsity is kept flagged sparse, never taken as dense.
The chip is the one the page's title names ("# TPU v6e" is "TPU v6e", the name the price sources' listings are
given). A page without the chip's compute, memory or bandwidth is refused naming what is missing, so the last good
spec stays current.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from pipelines.errors import ParseError
from pipelines.reading.tables import grid, shape_fingerprint
from pipelines.sources.file import SourceSpec
from pipelines.specs import figures
from pipelines.specs.records import NUMBER_FORMATS, ChipSpec, Compute, SpecBatch

PARSER_VERSION = "google_tpu_doc/1.0"

_RENDERER = MarkdownIt("commonmark").enable("table")
CHIP = re.compile(r"\bTPU\s*(?P<version>v\d+[a-z]*|\d+x)\b", re.IGNORECASE)
PER_CHIP_COMPUTE = re.compile(r"\bpeak\s+compute\s+per\s+chip\b.*\((?P<format>[^)]+)\)", re.IGNORECASE)
FIGURE = re.compile(rf"^(?P<value>{figures.NUMBER})\s*(?P<unit>[A-Za-z]+)$")
MEMORY_LABEL = re.compile(r"\bHBM\w*\s+capacity\b", re.IGNORECASE)
BANDWIDTH_LABEL = re.compile(r"\bHBM\w*\s+(?:capacity\s+and\s+)?bandwidth\b", re.IGNORECASE)
# Google's "1638 GBps" is 1638 GB/s: read as such, kept as printed.
PER_SECOND = re.compile(rf"(?P<value>{figures.NUMBER})\s*(?P<unit>GiB|GB|TiB|TB)(?:ps|/s)\b", re.IGNORECASE)
FORMATS = {f.lower(): f for f in NUMBER_FORMATS}


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> SpecBatch:
    sid = source.id
    try:
        text = body.decode(charset or "utf-8")
    except (UnicodeDecodeError, LookupError) as exc:
        raise ParseError(sid, f"the Markdown source is not {charset or 'utf-8'} text: {exc}") from exc
    soup = BeautifulSoup(_RENDERER.render(text), "lxml")
    chip = _chip(soup, source)
    pairs = _pairs(soup)
    labels = [label for label, _value in pairs]
    memory_text = " ; ".join(value for label, value in pairs if MEMORY_LABEL.search(label))
    bandwidth_text = " ; ".join(value for label, value in pairs if BANDWIDTH_LABEL.search(label))
    memory, bandwidth = figures.memory(memory_text), PER_SECOND.search(bandwidth_text)
    compute = [_compute(label, value, source) for label, value in pairs if PER_CHIP_COMPUTE.search(label)]
    missing = [
        name
        for name, found in (("peak compute per chip", compute), ("HBM capacity", memory), ("HBM bandwidth", bandwidth))
        if not found
    ]
    if missing or memory is None or bandwidth is None:
        raise ParseError(sid, f"the {chip} page prints no {', no '.join(missing)} per chip (rows seen: {labels})")
    spec = ChipSpec.model_validate(
        {
            "chip": chip,
            "vendor": "Google",
            "memory_value": memory[0],
            "memory_unit": memory[1],
            "memory_printed": memory[2],
            "bandwidth_value": figures.number(bandwidth["value"]),
            "bandwidth_unit": figures.unit_spelling(bandwidth["unit"]) + "/s",
            "bandwidth_printed": bandwidth.group(0),
            "compute": compute,
        }
    )
    return SpecBatch(source_id=sid, parser_version=PARSER_VERSION, chips=[spec], shape=shape_fingerprint(labels))


def _chip(soup: BeautifulSoup, source: SourceSpec) -> str:
    if chip := source.options.get("chip"):
        return str(chip)
    heading = soup.find("h1")
    found = CHIP.search(heading.get_text(" ", strip=True)) if heading is not None else None
    if found is None:
        raise ParseError(source.id, f"the page's title names no TPU version ({heading and heading.get_text()!r})")
    version = found["version"].lower()
    return f"TPU {version}" if version.startswith("v") else f"TPU{version}"


def _pairs(soup: BeautifulSoup) -> list[tuple[str, str]]:
    """Every row of every two-column table, label and value (the header row too: it is no figure's label)."""
    pairs = []
    for table in soup.find_all("table"):
        rows, _spanning = grid(table)
        pairs += [(row[0], row[1]) for row in rows if len(row) == 2]
    return pairs


def _compute(label: str, value: str, source: SourceSpec) -> Compute:
    named = PER_CHIP_COMPUTE.search(label)
    number_format = FORMATS.get(named["format"].strip().lower()) if named else None
    found = FIGURE.match(value.strip())
    if number_format is None or found is None:
        raise ParseError(source.id, f"the row {label!r} | {value!r} is not a figure in a known number format")
    return Compute.model_validate(
        {
            "number_format": number_format,
            "label_printed": named["format"].strip() if named else label,
            "value": figures.number(found["value"]),
            "unit": figures.canonical_unit(found["unit"]),
            "sparse": bool(re.search(r"spars", label, re.IGNORECASE)),
        }
    )
