"""Configuration tables (instance sizes, UltraServers) read in either orientation.

inf1/inf2/trn1-arch print one row per instance size; trn2-arch and trn3-arch are transposed (one row per
metric, one column per configuration), trn3's with two header rows and bold section rows whose cells are
empty. Which way a table runs is decided by where the configuration names are, not by its markup. Units
live in the labels ("Device Memory (GiB)", "FP8 PFLOPS") or beside the figures ("2,304 GB").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from bs4 import BeautifulSoup

from pipelines.errors import ParseError, RenderedTableMissing
from pipelines.reading.sphinx import table_rows
from pipelines.specs import figures
from pipelines.specs.records import Compute, ConfigSpec

CONFIG_NAME = re.compile(r"\b(inf|trn)\d\w*[.-]\w+|ultra\s*server", re.IGNORECASE)
_CHIPS = re.compile(r"\b(chips?|devices?|accelerators?)\b|^(trainium|inferentia)\d*$", re.IGNORECASE)
_NOT_CHIPS = re.compile(r"interconnect|bandwidth|link|memory|per\b", re.IGNORECASE)
_MEMORY = re.compile(r"(device|accelerator|hbm|neuron|chip|total)\s*memory|^memory\b|\bhbm\b", re.IGNORECASE)
_BANDWIDTH = re.compile(r"memory.*bandwidth|bandwidth.*memory|\bhbm\b.*bandwidth", re.IGNORECASE)
_NOT_MEMORY_BANDWIDTH = re.compile(r"link|chip-to-chip|device-to-device|efa|network|interconnect", re.IGNORECASE)
_LEADING_COUNT = re.compile(r"^\s*(?:up\s*-?\s*to\s+)?(\d{1,3}(?:,\d{3})+|\d+)\b", re.IGNORECASE)

Metrics = dict[str, str]


def configuration_tables(soup: BeautifulSoup) -> list[tuple[list[str], list[tuple[str, Metrics]]]]:
    """Every table of a rendered page that names configurations (see configurations_in)."""
    return configurations_in([[c.text for c in row] for row in table_rows(table)] for table in soup.find_all("table"))


def configurations_in(tables: Iterable[list[list[str]]]) -> list[tuple[list[str], list[tuple[str, Metrics]]]]:
    """Tables as rows of cell texts (from the HTML or the RST source) that name configurations: (their labels,
    [(configuration as printed, label -> cell text)])."""
    found = []
    for table in tables:
        rows = [r for r in table if r]
        header_at = next((i for i, r in enumerate(rows) if any(CONFIG_NAME.search(c) for c in r[1:])), None)
        if header_at is not None:
            found.append(_transposed(rows, header_at))
        elif any(CONFIG_NAME.search(r[0]) for r in rows[1:]):
            found.append(_row_per_config(rows))
    return [f for f in found if f[1]]


def _transposed(rows: list[list[str]], header_at: int) -> tuple[list[str], list[tuple[str, Metrics]]]:
    columns = [(i, name) for i, name in enumerate(rows[header_at]) if i > 0 and name]
    configs: list[tuple[str, Metrics]] = [(name, {}) for _, name in columns]
    labels = []
    for row in rows[header_at + 1 :]:
        if not row[0] or not any(row[1:]):  # the "Configuration" header row, bold section rows
            continue
        labels.append(row[0])
        for (index, _), (_, metrics) in zip(columns, configs, strict=True):
            metrics[row[0]] = row[index] if index < len(row) else ""
    return labels, configs


def _row_per_config(rows: list[list[str]]) -> tuple[list[str], list[tuple[str, Metrics]]]:
    header = rows[0]
    configs = [
        (row[0], {header[i]: row[i] for i in range(1, min(len(header), len(row)))})
        for row in rows[1:]
        if CONFIG_NAME.search(row[0])
    ]
    return header[1:], configs


def to_config(name: str, metrics: Metrics, chip: str, version: str | None, source_id: str) -> ConfigSpec:
    chips = _chips(name, metrics, source_id)
    memory = _memory(metrics)
    speed = _bandwidth(metrics)
    return ConfigSpec(
        configuration=name,
        chip=chip,
        chips=chips,
        memory_printed=memory[2] if memory else None,
        memory_value=memory[0] if memory else None,
        memory_unit=memory[1] if memory else None,  # type: ignore[arg-type]
        bandwidth_printed=speed[2] if speed else None,
        bandwidth_value=speed[0] if speed else None,
        bandwidth_unit=speed[1] if speed else None,  # type: ignore[arg-type]
        compute=_compute(metrics),
        doc_version=version,
    )


def _chips(name: str, metrics: Metrics, source_id: str) -> int:
    for label, text in metrics.items():
        if _CHIPS.search(label) and not _NOT_CHIPS.search(label):
            count = _LEADING_COUNT.match(text)
            if count:
                return int(count[1].replace(",", ""))
    raise ParseError(source_id, f"configuration {name!r}: no chip count among {list(metrics)}")


def _memory(metrics: Metrics) -> tuple[Decimal, str, str] | None:
    for label, text in metrics.items():
        if _MEMORY.search(label) and not re.search(r"bandwidth|/s", label, re.IGNORECASE):
            unit = figures.unit_in_label(label)
            found = figures.memory(text, unit)
            if found:
                return found
    return None


def _bandwidth(metrics: Metrics) -> tuple[Decimal, str, str] | None:
    """The memory bandwidth row or column ("Device Memory Bandwidth (TB/sec)", "Instance Memory Bandwidth
    (GiB/sec)"), never a link's or the network's ("NeuronLink-v2 chip-to-chip (GiB/sec/chip)", "EFA bandwidth")."""
    for label, text in metrics.items():
        if _BANDWIDTH.search(label) and not _NOT_MEMORY_BANDWIDTH.search(label):
            found = figures.bandwidth(text, figures.unit_in_label(label))
            if found:
                return found
    return None


def _compute(metrics: Metrics) -> list[Compute]:
    result: list[Compute] = []
    for label, text in metrics.items():
        meaning = figures.header_compute(label)
        value = figures.plain_number(text)
        if meaning is None or value is None or value <= 0:
            continue
        formats, unit, sparse = meaning
        printed = re.sub(r"\s*\(.*?\)\s*", " ", label).strip()
        result += [_figure(fmt, printed, value, unit, sparse) for fmt in formats]
    return result


def _figure(fmt: str, label: str, value: Decimal, unit: str, sparse: bool) -> Compute:
    fields: dict[str, Any] = {"number_format": fmt, "label_printed": label, "value": value, "unit": unit}
    return Compute(**fields, sparse=sparse)


def configs_of(
    soup: BeautifulSoup, chip: str, version: str | None, source_id: str, source_texts: tuple[str, ...] = ()
) -> tuple[list[ConfigSpec], str]:
    """All configurations on a rendered page and the labels read (the shape). A page without any is refused,
    naming where its source text may be read instead (`source_texts`, for a Sphinx page)."""
    tables = configuration_tables(soup)
    if not tables:
        raise RenderedTableMissing(
            source_id,
            "no configuration table in the page (a malformed list-table renders as nothing in the HTML; "
            "its RST source still carries the figures)",
            source_texts,
        )
    return configs_from(tables, chip, version, source_id)


def configs_from(
    tables: list[tuple[list[str], list[tuple[str, Metrics]]]], chip: str, version: str | None, source_id: str
) -> tuple[list[ConfigSpec], str]:
    configs = [to_config(name, metrics, chip, version, source_id) for _, found in tables for name, metrics in found]
    labels = [label for labels, _ in tables for label in labels]
    return configs, "\x1f".join(labels)
