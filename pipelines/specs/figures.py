"""Reading specification figures out of prose, bullets and header labels.

The Neuron pages print figures inside sentences ("32 GiB of HBM with 820 GiB/sec of bandwidth"), split
across bullets, with combined format labels ("FP16/BF16/cFP8/TF32"), "sparse" as a word, thousands commas
or none, and units either beside the number or only in a column header ("FP8 PFLOPS", "(GiB)").
"""

from __future__ import annotations

import re
from decimal import Decimal

from pipelines.reading.sphinx import normalise
from pipelines.specs.records import NUMBER_FORMATS, Compute

NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_FORMAT_BY_LOWER = {f.lower(): f for f in NUMBER_FORMATS}
_FORMAT = "|".join(sorted((re.escape(f) for f in NUMBER_FORMATS), key=len, reverse=True))
_LABEL = rf"(?:{_FORMAT})(?:\s*/\s*(?:{_FORMAT}))*"
_UNIT = r"(?:TFLOPS?|PFLOPS?|TOPS|POPS|PetaFLOPS|TeraFLOPS)"
_SPARSE = r"(?:\(?\s*sparse\s*\)?|with sparsity)"
# "190 FP16/BF16/TF32 TFLOPS", "2,563 FP8/FP16/BF16/TF32 sparse TFLOPS", "47.5 FP32 TFLOP", "128 INT8 TOPS"
_FIGURE = re.compile(
    rf"(?P<value>{NUMBER})\s*(?:(?P<unit1>{_UNIT})\s+(?:of\s+)?)?(?P<label>{_LABEL})"
    rf"\s*(?P<sparse1>{_SPARSE})?\s*(?P<unit2>{_UNIT})?\s*(?P<sparse2>{_SPARSE})?",
    re.IGNORECASE,
)
_MEMORY = re.compile(rf"(?P<value>{NUMBER})\s*(?P<unit>GiB|GB|TiB|TB)\b(?!\s*/)", re.IGNORECASE)
_BANDWIDTH = re.compile(rf"(?P<value>{NUMBER})\s*(?P<unit>GiB|GB|TiB|TB)\s*/\s*s(?:ec(?:ond)?)?\b", re.IGNORECASE)
_CORES = re.compile(r"(?P<count>\d+|[a-z]+)\s*x?\s*(?:NeuronCore|Neuron\s+core)s?-?(?P<version>v\d)", re.IGNORECASE)
_WORDS = {"one": 1, "two": 2, "four": 4, "eight": 8, "sixteen": 16, "single": 1}
_UNIT_SPELLING = {"gib": "GiB", "gb": "GB", "tib": "TiB", "tb": "TB"}


def number(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def formats_of(label: str) -> list[str]:
    """'FP16/BF16/cFP8/TF32' -> the formats sharing one figure, canonical spelling, printed order."""
    return [_FORMAT_BY_LOWER[part.strip().lower()] for part in label.split("/") if part.strip()]


def unit_spelling(unit: str) -> str:
    """A byte unit as ratecard spells it: gb -> GB, gib -> GiB."""
    return _UNIT_SPELLING[unit.lower()]


def canonical_unit(unit: str) -> str:
    spelled = unit.upper().rstrip("S")
    if spelled in ("PETAFLOP", "PFLOP"):
        return "PFLOPS"
    if spelled in ("TERAFLOP", "TFLOP"):
        return "TFLOPS"
    return spelled + "S" if spelled in ("TOP", "POP") else spelled


def compute_figures(text: str, default_unit: str | None = None) -> list[Compute]:
    """Every "<number> <formats> [sparse] <unit>" in a text, one Compute per format."""
    found: list[Compute] = []
    for match in _FIGURE.finditer(normalise(text)):
        unit = match["unit1"] or match["unit2"] or default_unit
        if unit is None:
            continue
        sparse = bool(match["sparse1"] or match["sparse2"])
        label = re.sub(r"\s*/\s*", "/", match["label"])
        found += [
            Compute(
                number_format=fmt,
                label_printed=label + (" sparse" if sparse else ""),
                value=number(match["value"]),
                unit=canonical_unit(unit),  # type: ignore[arg-type]
                sparse=sparse,
            )
            for fmt in formats_of(label)
        ]
    return found


def header_compute(label: str) -> tuple[list[str], str, bool] | None:
    """A column or row label that names formats and a unit ("FP8 PFLOPS", "FP16/BF16/TF32 (TFLOPS)",
    "FP8 sparse PFLOPS"): the formats, the unit and whether it is sparse; None for any other label."""
    text = normalise(label)
    formats = re.search(_LABEL, text, re.IGNORECASE)
    unit = re.search(_UNIT, text, re.IGNORECASE)
    if formats is None or unit is None:
        return None
    return formats_of(formats.group(0)), canonical_unit(unit.group(0)), bool(re.search(_SPARSE, text, re.IGNORECASE))


def memory(text: str, header_unit: str | None = None) -> tuple[Decimal, str, str] | None:
    """The first memory figure (not a bandwidth): value, unit, as printed. A bare number takes the header's unit."""
    text = normalise(text)
    found = _MEMORY.search(text)
    if found:
        return number(found["value"]), _UNIT_SPELLING[found["unit"].lower()], found.group(0)
    return _bare(text, header_unit)


def bandwidth(text: str, header_unit: str | None = None) -> tuple[Decimal, str, str] | None:
    """The first bandwidth figure: value, unit per second ("GiB/s"), as printed."""
    text = normalise(text)
    found = _BANDWIDTH.search(text)
    if found:
        return number(found["value"]), _UNIT_SPELLING[found["unit"].lower()] + "/s", found.group(0)
    return _bare(text, header_unit)


def _bare(text: str, header_unit: str | None) -> tuple[Decimal, str, str] | None:
    """A cell holding only a number ("1,536", "up-to 25") takes its column header's unit."""
    bare = re.fullmatch(rf"(?:up\s*-?\s*to\s+)?({NUMBER})", text, re.IGNORECASE)
    if bare and header_unit:
        return number(bare[1]), header_unit, f"{text} {header_unit}"
    return None


def unit_in_label(label: str) -> str | None:
    """'Device Memory (GiB)' -> 'GiB'; 'Memory Bandwidth (TB/sec)' -> 'TB/s'."""
    found = re.search(r"\(\s*(GiB|GB|TiB|TB)\s*(/\s*s(?:ec)?)?\s*\)", label, re.IGNORECASE)
    if not found:
        return None
    unit = _UNIT_SPELLING[found[1].lower()]
    return unit + "/s" if found[2] else unit


def cores(text: str) -> tuple[int, str] | None:
    """'Two NeuronCore-v2', '2x NeuronCore-v2 cores', 'Eight NeuronCore-v3' -> (count, 'v3')."""
    found = _CORES.search(normalise(text))
    if not found:
        return None
    raw = found["count"].lower()
    count = int(raw) if raw.isdigit() else _WORDS.get(raw)
    return (count, found["version"].lower()) if count else None


def plain_number(text: str) -> Decimal | None:
    """A cell holding one figure: '3,040', '1140', 'Up to 16', '20.8'; None for '-', 'N/A', empty."""
    found = re.fullmatch(rf"(?:up\s*-?\s*to\s+)?({NUMBER})\s*\S*", normalise(text), re.IGNORECASE)
    return number(found[1]) if found else None
