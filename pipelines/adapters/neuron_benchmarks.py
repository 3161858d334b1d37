"""AWS Neuron's published inference benchmarks (`about-neuron/benchmarks/<family>/*_data_*.csv` in
aws-neuron/aws-neuron-sdk): one row per model, instance, SDK release and run conditions, with throughput and
time-to-first-token / time-per-output-token latencies (decoders), request latencies (encoders), or a training run's
sequences a second at its scale (nodes, topology, global batch), with its MFU and compute cost per token where printed.
An Inf1 table's NeuronCores and model details are conditions of its run.

Columns are found by their header words, wherever they sit (`Model`, `Inst. Type`, `... Throughput (unit)`, `TTFT
Latency P50 (ms)`, `Neuron Version`, ...); the throughput's unit is the header's parenthesis. A table without a
model, instance, throughput or release column is refused whole, naming what is missing; a row whose figure is not
a number, or that repeats another's model, instance, release and conditions, is refused alone, named. An empty cell
stays unknown. These are the vendor's claims: they land as such and decide nothing.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from pipelines.benchmarks.records import BenchmarkBatch, VendorBenchmark
from pipelines.errors import MissingColumnError, ParseError
from pipelines.reading.tables import shape_fingerprint
from pipelines.reading.values import clean, full_release, is_empty, parse_decimal, parse_int
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "neuron_benchmarks/1.5"
Match = Callable[[str], bool]


def _words(*words: str) -> Match:
    return lambda header: all(w in header for w in words)


def _request_latency(header: str, percentile: str) -> bool:
    per_token = any(word in header for word in ("ttft", "tpot", "per token"))
    return "latency" in header and percentile in header and not per_token


# field -> how its header reads (lower case, spaces collapsed); the first header that matches is taken.
COLUMNS: dict[str, Match] = {
    "model": lambda h: h == "model",
    "instance_printed": lambda h: "inst" in h and "type" in h,
    # Inference tables print "Throughput (tokens/sec)"; training tables "Performance [seq/sec]".
    "throughput": lambda h: "throughput" in h or h.startswith("performance"),
    "neuron_release": lambda h: re.fullmatch(r"neuron (sdk )?(version|release)", h) is not None,
    "ttft_p50_ms": _words("ttft", "p50"),
    "ttft_p99_ms": _words("ttft", "p99"),
    "tpot_p50_ms": _words("tpot", "p50"),
    "tpot_p99_ms": _words("tpot", "p99"),
    # An encoder's request latency: "Latency P50 (ms)", never a TTFT, TPOT or "Latency per Token" column.
    "latency_p50_ms": lambda h: _request_latency(h, "p50"),
    "latency_p99_ms": lambda h: _request_latency(h, "p99"),
    "token_latency_p50_ms": _words("latency per token", "p50"),
    "token_latency_p99_ms": _words("latency per token", "p99"),
    "framework": lambda h: h == "framework",
    "task": lambda h: h == "task",
    "application_type": _words("application type"),
    "batch_size": lambda h: "batch size" in h or h == "microbatch",  # per device; a training run's global apart
    "tp_degree": _words("tp degree"),
    "dp_degree": _words("dp degree"),
    "input_length": _words("input length"),
    "output_length": _words("output length"),
    "sequence_length": lambda h: re.fullmatch(r"seq(uence|\.)? ?length", h) is not None,
    "model_data_type": lambda h: "model data type" in h or h == "training data-type",
    "nodes": lambda h: h == "nodes",
    "topology": lambda h: h == "topology",
    "optimizer": lambda h: h == "optimizer",
    "image_size": lambda h: h == "image size",
    "global_batch_size": lambda h: h == "globalbatch",
    "neuron_cores": lambda h: re.fullmatch(r"num\.? ?cores", h) is not None,  # Inf1: "Num. Cores"
    "model_details": lambda h: h == "model details",
    "mfu_pct": lambda h: re.fullmatch(r"mfu ?[\[(]%[\])]", h) is not None,  # "MFU[%]"
    "compute_cost_per_token_tflops": lambda h: re.fullmatch(r"compute ?cost ?per ?token ?\(tflops\)", h) is not None,
}
REQUIRED = ("model", "instance_printed", "throughput", "neuron_release")
MILLISECONDS = (
    *("ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p99_ms"),
    *("latency_p50_ms", "latency_p99_ms", "token_latency_p50_ms", "token_latency_p99_ms"),
)
FIGURES = (*MILLISECONDS, "mfu_pct", "compute_cost_per_token_tflops")
WHOLE = (
    *("batch_size", "tp_degree", "dp_degree", "input_length", "output_length", "sequence_length"),
    *("nodes", "global_batch_size", "neuron_cores"),
)
TEXT = (
    *("framework", "task", "application_type", "model_data_type", "topology", "optimizer", "image_size"),
    "model_details",
)


def parse(body: bytes, source: SourceSpec) -> BenchmarkBatch:
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(source.id, f"not UTF-8 text: {exc}") from exc
    try:  # newline="": csv reads the line ends itself, a lone \r included
        table = [row for row in csv.reader(io.StringIO(text, newline="")) if any(cell.strip() for cell in row)]
    except csv.Error as exc:
        raise ParseError(source.id, f"not a readable CSV table: {exc}") from exc
    if not table:
        raise ParseError(source.id, "no rows: the benchmark table is empty")
    headers = [re.sub(r"\s+", " ", h).strip() for h in table[0]]
    at = _find_columns(headers)
    missing = [name for name in REQUIRED if name not in at]
    if missing:
        raise MissingColumnError(source.id, missing, headers)
    unit = _unit(headers[at["throughput"]])
    if unit is None:
        raise ParseError(source.id, f"the throughput header {headers[at['throughput']]!r} names no unit")
    rows: list[VendorBenchmark] = []
    refused: list[str] = []
    seen: set[tuple[str, str, str, str]] = set()
    for number, cells in enumerate(table[1:], start=1):
        for row in _rows(cells, at, unit, number, refused):
            key = (row.model, row.instance_type, row.neuron_release, row.conditions)
            if key in seen:
                what = f"{row.model} on {row.instance_type} at {row.neuron_release}, {row.conditions}"
                refused.append(f"row {number}: repeats {what}")
                continue
            seen.add(key)
            rows.append(row)
    return BenchmarkBatch(
        source_id=source.id,
        parser_version=PARSER_VERSION,
        rows=rows,
        refused=refused,
        shape=shape_fingerprint(headers),
    )


def _find_columns(headers: list[str]) -> dict[str, int]:
    at: dict[str, int] = {}
    for index, header in enumerate(headers):
        folded = header.casefold()
        for name, matches in COLUMNS.items():
            if name not in at and matches(folded):
                at[name] = index
                break
    return at


def _unit(header: str) -> str | None:
    """The unit in the header's parenthesis or brackets: "(tokens/sec)", "[seq/sec]"."""
    found = re.search(r"[(\[]([^)\]]*/[^)\]]*)[)\]]", header)
    return found.group(1).strip() if found else None


def _rows(cells: list[str], at: dict[str, int], unit: str, number: int, refused: list[str]) -> list[VendorBenchmark]:
    """The row's figures, once per instance type it names: a training table's "trn1.32xlarge/trn1n.32xlarge" claims
    them for both (each row keeps the cell as printed). A row refused is none, its reason added to `refused`."""

    def cell(name: str) -> str | None:
        index = at.get(name)
        value = cells[index] if index is not None and index < len(cells) else None
        return None if is_empty(value) else clean(value)

    try:
        if cell("throughput") is None:  # the one figure a row is for: empty or "n/a" is a row that says nothing
            raw = cells[at["throughput"]] if at["throughput"] < len(cells) else ""
            raise ValueError(f"no throughput (the cell is {raw!r})")
        fields: dict[str, Any] = {
            "model": cell("model"),
            "work": "training" if "nodes" in at or "global_batch_size" in at else "inference",
            "instance_printed": cell("instance_printed"),
            "neuron_release": full_release(release) if (release := cell("neuron_release")) else None,
            "throughput": _number(cell("throughput")),
            "throughput_unit": unit,
        }
        fields |= {name: _number(cell(name)) for name in FIGURES}
        fields |= {name: parse_int(cell(name)) for name in WHOLE}
        fields |= {name: cell(name) for name in TEXT}
        instances = [i.strip().lower() for i in (cell("instance_printed") or "").split("/")]
        return [VendorBenchmark(**fields, instance_type=instance) for instance in instances]
    except ValueError as exc:  # a cell that is not a number, or a record its model refuses
        refused.append(f"row {number}: {_why(exc)}")
        return []


def _number(text: str | None) -> Decimal | None:
    """A figure cell: a plain number, or nothing (`n/a`, a word) refused, never read as its first digits."""
    if text is None:
        return None
    if not re.fullmatch(r"[\d,]*\.?\d+", text):
        raise ValueError(f"{text!r} is not a number")
    return parse_decimal(text)


def _why(exc: ValueError) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']} (input {e.get('input')!r})" for e in exc.errors())
    return str(exc)
