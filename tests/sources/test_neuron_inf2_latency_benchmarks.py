"""AWS Neuron's Inf2 decoder latency benchmarks (CSV): the checks every source gets (tests/support/source_kit.py),
columns found by their header words wherever they sit, an empty figure kept unknown, and bad rows refused alone."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

from pipelines.errors import MissingColumnError
from pipelines.sources.file import sample_path
from tests.support.source_kit import SourceChecks, declared, parse

SOURCE = "neuron_inf2_latency_benchmarks"


class TestNeuronInf2LatencyBenchmarks(SourceChecks):
    source_id = "neuron_inf2_latency_benchmarks"


def sample_table() -> list[list[str]]:
    return list(csv.reader(io.StringIO(sample_path(declared()[SOURCE]).read_text())))


def written(table: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(table)
    return out.getvalue().encode()


def test_columns_are_found_by_their_words_in_any_order_and_an_empty_figure_stays_unknown():
    table = sample_table()
    shuffled = [list(reversed(row)) for row in table]
    original, moved = parse(declared()[SOURCE]), parse(declared()[SOURCE], written(shuffled))
    assert moved.rows == original.rows and len(original.rows) == 4
    small = next(r for r in original.rows if r.instance_type == "inf2.xlarge")
    assert (small.throughput, small.ttft_p50_ms, small.ttft_p99_ms, small.tpot_p99_ms) == (
        Decimal("38.42"),
        Decimal("88.90"),
        None,
        None,
    )
    assert small.throughput_unit == "tokens/sec" and small.neuron_release == "2.31.0"


def test_a_bad_figure_or_a_repeated_row_is_refused_alone():
    table = sample_table()
    throughput = table[0].index("Output Token Throughput (tokens/sec)")
    table[1][throughput] = "n/a"
    table[3][throughput + 1] = "fast"  # its TTFT P50
    table.append(table[2])  # the same model, instance, release and conditions again
    batch = parse(declared()[SOURCE], written(table))
    assert len(batch.rows) == 2 and len(batch.refused) == 3
    assert "row 3: 'fast' is not a number" in batch.refused[1]
    assert (
        "row 1: no throughput (the cell is 'n/a')" in batch.refused[0]
        and "row 5: repeats Llama-3.1-8B" in batch.refused[2]
    )


def test_a_table_without_its_throughput_is_refused_naming_what_is_missing():
    table = [[cell for i, cell in enumerate(row) if i != 5] for row in sample_table()]
    with pytest.raises(MissingColumnError, match=r"\[neuron_inf2_latency_benchmarks\].*throughput"):
        parse(declared()[SOURCE], written(table))


def test_a_stray_carriage_return_is_a_line_end_or_a_named_refusal_never_a_crash():
    body = sample_path(declared()[SOURCE]).read_bytes()
    assert parse(declared()[SOURCE], body.replace(b"\n", b"\r")).rows == parse(declared()[SOURCE]).rows
    with pytest.raises(MissingColumnError, match=r"\[neuron_inf2_latency_benchmarks\]"):
        parse(declared()[SOURCE], b"\r" + body[1:])  # the fuzzer's find: "Model" lost its M to a line end
