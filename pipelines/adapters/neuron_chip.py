"""AWS Neuron chip pages (Inferentia, Inferentia2, Trainium, Trainium2, Trainium3): one ChipSpec per page.

The chip block is a header-less grid table (label cell, prose cell), a stub-column list-table, or (older
releases) a definition list; figures sit in prose or one per bullet. Comparison tables (old chip vs new
chip, rounded differently) have more than two columns and are not read. A page whose figures are gone is
refused: a ParseError naming what is missing, so the last good specs stay current.
"""

from __future__ import annotations

import re
from typing import Any

from pipelines.errors import ParseError
from pipelines.reading.sphinx import Cell, doc_version, title, two_column_pairs
from pipelines.reading.tables import shape_fingerprint, soup_of
from pipelines.sources.file import SourceSpec
from pipelines.specs import figures
from pipelines.specs.records import ChipSpec, Compute, SpecBatch

PARSER_VERSION = "neuron_chip/1.0"


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> SpecBatch:
    soup = soup_of(body, charset)
    pairs = two_column_pairs(soup)
    chip = source.options.get("chip") or _chip_name(title(soup), source)
    compute_cells = [cell for label, cell in pairs if re.search(r"\bcompute\b", label, re.IGNORECASE)]
    memory_cells = [cell for label, cell in pairs if re.search(r"memory", label, re.IGNORECASE)]
    if not compute_cells:
        raise ParseError(source.id, f"no 'Compute' block on the {chip} page (labels seen: {[p[0] for p in pairs]})")
    if not memory_cells:
        raise ParseError(source.id, f"no memory block on the {chip} page (labels seen: {[p[0] for p in pairs]})")
    spec = ChipSpec(
        chip=chip,
        **_cores(compute_cells[0], source),
        **_memory(memory_cells, source),
        compute=_compute(compute_cells[0], source),
        doc_version=doc_version(soup, str(source.url)),
    )
    return SpecBatch(
        source_id=source.id, parser_version=PARSER_VERSION, chips=[spec], shape=shape_fingerprint([p[0] for p in pairs])
    )


def _chip_name(heading: str, source: SourceSpec) -> str:
    found = re.search(r"(Trainium|Inferentia)\s*(\d*)", heading, re.IGNORECASE)
    if not found:
        raise ParseError(source.id, f"page title {heading!r} names no Trainium or Inferentia chip")
    return found[1].capitalize() + found[2]


def _cores(cell: Cell, source: SourceSpec) -> dict[str, Any]:
    found = figures.cores(cell.text)
    if found is None:
        raise ParseError(source.id, f"no NeuronCore count in the Compute block: {cell.text[:120]!r}")
    return {"neuron_cores": found[0], "neuron_core_version": found[1]}


def _memory(cells: list[Cell], source: SourceSpec) -> dict[str, Any]:
    text = " ; ".join(c.text for c in cells)
    memory = figures.memory(text)
    speed = figures.bandwidth(text)
    if memory is None or speed is None:
        raise ParseError(source.id, f"memory block without a size and a bandwidth: {text[:160]!r}")
    return {
        "memory_value": memory[0],
        "memory_unit": memory[1],
        "memory_printed": memory[2],
        "bandwidth_value": speed[0],
        "bandwidth_unit": speed[1],
        "bandwidth_printed": speed[2],
    }


def _compute(cell: Cell, source: SourceSpec) -> list[Compute]:
    found = figures.compute_figures(cell.text)
    if not found:
        raise ParseError(source.id, f"no compute figure in the Compute block: {cell.text[:160]!r}")
    seen: set[tuple[str, bool]] = set()
    unique = []
    for item in found:  # the first figure per (format, sparse) is the chip's; later repeats are prose
        if (item.number_format, item.sparse) not in seen:
            seen.add((item.number_format, item.sparse))
            unique.append(item)
    return unique
