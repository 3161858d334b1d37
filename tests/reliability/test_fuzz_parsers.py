"""Fuzzing every adapter: whatever bytes a page answers with, a parser either returns a batch or raises
ParseError (RecordInvalid and the other typed errors are subclasses). Any other exception is a parser bug.

Two generators, derandomised (the same pytest command draws the same examples every run; the ECB's odd
documents are test_fuzz_fx.py's):
- byte mutants of every source's bundled sample: delete / duplicate / flip / replace / truncate a slice, insert
  hostile text (markup, quotes, currency marks, digits, exponents, non-UTF-8 bytes) at a random offset or right
  after a tag, or rewrite one text node;
- structural mutants of the JSON sources: values swapped for other JSON types, huge numbers, NaN, keys deleted.
Plus the fuzzer's findings pinned as examples, and a colspan/rowspan bomb that must parse in bounded time.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import strategies as st

from pipelines.sources.file import sample_path
from tests.reliability.fuzzing import SOURCES, measure_failures, outcome_of, run_fuzz, summary
from tests.reliability.promises import ERRORS_UNNAMED, PARSER_CRASHES
from tests.support.paths import ROOT

JSON_SOURCES = ["gpu_runpod", "gpu_vastai", "gpu_leadergpu"]
TOKENS = [
    b"<",
    b">",
    b"</td>",
    b"<td>",
    b"<tr>",
    b"</tr>",
    b"<table>",
    b"</table>",
    b"<th>",
    b"<sup>",
    b'"',
    b"'",
    b"$",
    "€".encode(),
    "£".encode(),
    b"USD",
    b"0",
    b"7",
    b"12.5",
    b"99999999999999999999999999999999",
    b"-",
    b"e",
    b"1e308",
    b"E-9",
    b".",
    b",",
    b"1,5",
    b"NaN",
    b"Infinity",
    b"\xff",
    b"\xfe\xff",
    b"\x80\x81",
    b"\xc3(",
    b"\xed\xa0\x80",
    b"\x00",
    b"&#0;",
    b"&#xD800;",
    b"&nbsp;",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b"\\",
    b"\\ud800",
    b"<![CDATA[",
    b"<!--",
    b"<!DOCTYPE x>",
    b' rowspan="7"',
    b' colspan="3"',
    b' colspan="-2"',
    "×".encode(),
    b" x ",
    b"GB",
    b"TiB",
    b"pcs",
    b"8 pcs ",
    b"/ day",
    b"per week",
    b"null",
    b"true",
    b"N/A",
    b"\xe2\x80\x94",
    "\u0661\u0662".encode(),
    b"\t\n",
    b" " * 20,
]
TEXT_PIECES = [
    "$",
    "€",
    "USD",
    "EUR",
    "-",
    "e",
    "E",
    ".",
    ",",
    "0",
    "1",
    "9",
    "x",
    "×",
    " ",
    "GB",
    "GiB",
    "TB",
    "N/A",
    "—",
    "Up to",
    "1e400",
    "٣",
    "½",
    "\u00a0",
    "*",
    "†",
    "(",
    ")",
    "%",
    "/",
    "hour",
    "pcs",
]


@st.composite
def byte_mutants(draw: st.DrawFn, sample: bytes) -> bytes:
    body = sample
    for _ in range(draw(st.integers(1, 4))):
        n = len(body)
        at = draw(st.integers(0, n))
        span = draw(st.integers(1, 300))
        op = draw(
            st.sampled_from(
                ["delete", "duplicate", "flip", "replace", "insert", "insert_after_tag", "rewrite_text", "truncate"]
            )
        )
        if op == "delete":
            body = body[:at] + body[at + span :]
        elif op == "duplicate":
            body = body[: at + span] + body[at : at + span] + body[at + span :]
        elif op == "flip" and n:
            i = min(at, n - 1)
            body = body[:i] + bytes([body[i] ^ (1 << draw(st.integers(0, 7)))]) + body[i + 1 :]
        elif op == "replace" and n:
            i = min(at, n - 1)
            new = draw(st.binary(min_size=1, max_size=8))
            body = body[:i] + new + body[i + len(new) :]
        elif op == "insert":
            body = body[:at] + draw(_insertion()) + body[at:]
        elif op == "insert_after_tag":
            tags = [m.end() for m in re.finditer(rb">", body)] or [at]
            i = draw(st.sampled_from(tags))
            body = body[:i] + draw(_insertion()) + body[i:]
        elif op == "rewrite_text":
            texts = [m.span(1) for m in re.finditer(rb">([^<>]+)<", body)] or [(at, at)]
            start, end = draw(st.sampled_from(texts))
            text = "".join(draw(st.lists(st.sampled_from(TEXT_PIECES), max_size=6)))
            body = body[:start] + text.encode() + body[end:]
        elif op == "truncate":
            body = body[:at]
    return body


def _insertion() -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.lists(st.sampled_from(TOKENS), min_size=1, max_size=4).map(b"".join), st.binary(min_size=1, max_size=6)
    )


# -- every source, byte mutants --------------------------------------------------------------------------------


@pytest.mark.expect("only ParseError")
@pytest.mark.promises(PARSER_CRASHES, ERRORS_UNNAMED)
@pytest.mark.parametrize("source_id", sorted(SOURCES))
def test_fuzz_bytes(source_id, scenario):
    source = SOURCES[source_id]
    sample = sample_path(source).read_bytes()
    assert outcome_of(source, sample) == "parsed"  # the unmutated sample parses, so mutants start from good
    seen = run_fuzz(source, byte_mutants(sample), scenario)
    scenario.observed = summary(seen)
    assert sum(n for k, n in seen.items() if k != "parsed") > 0, "no mutant was refused: the mutator is inert"


# What the fuzzer found, pinned as plain examples (the derandomised examples shift when a strategy changes).
FOUND = {
    "nested_table_in_thead": ("aws_trn1", "<thead><tr>", "<thead><tr><table>\n<thead><tr>"),  # IndexError
    "price_beyond_decimal_precision": ("gpu_runpod", "2.6899999999999995", "1e300"),  # decimal.InvalidOperation
}


@pytest.mark.expect("only ParseError")
@pytest.mark.promises(PARSER_CRASHES, ERRORS_UNNAMED)
@pytest.mark.parametrize("case", sorted(FOUND))
def test_fuzz_finding_stays_fixed(case, scenario):
    source_id, old, new = FOUND[case]
    text = sample_path(SOURCES[source_id]).read_text(encoding="utf-8")
    assert old in text
    seen: Counter = Counter()
    try:
        scenario.observed = outcome_of(SOURCES[source_id], text.replace(old, new, 1).encode(), seen)
    finally:
        measure_failures(scenario, seen)


# -- JSON sources, structural mutants ----------------------------------------------------------------------------

ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**18, max_value=10**60),
    st.just(-(10**40)),
    st.floats(),
    st.sampled_from([1e308, -0.0, 5e-324, 1e-30]),
    st.sampled_from(["NaN", "Infinity", "-1", "1e999", "0", "", "  ", "€5", "$-1", "\ud800", "0x10", "１２"]),  # noqa: RUF001 - full-width digits on purpose
    st.text(max_size=12),
    st.lists(st.integers(0, 9), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def _paths(node: object, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*path, index))
    return found


def _set(document: object, path: tuple, change: Callable[[object, object], None]) -> object:
    if not path:
        return document
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    change(parent, path[-1])
    return document


@st.composite
def json_mutants(draw: st.DrawFn, sample: bytes, html_key: str | None = None) -> bytes:
    document = json.loads(sample)
    for _ in range(draw(st.integers(1, 5))):
        paths = _paths(document)
        path = draw(st.sampled_from(paths))
        op = draw(
            st.sampled_from(
                ["swap", "swap", "delete", "wrap", "html"] if html_key else ["swap", "swap", "delete", "wrap"]
            )
        )
        if not path:
            document = draw(ODD_VALUES) if op == "swap" else [document]
        elif op == "swap":
            value = draw(ODD_VALUES)
            _set(document, path, lambda parent, key, value=value: parent.__setitem__(key, value))
        elif op == "delete":
            _set(document, path, lambda parent, key: parent.__delitem__(key))
        elif op == "wrap":
            _set(document, path, lambda parent, key: parent.__setitem__(key, [copy.deepcopy(parent[key])]))
        elif isinstance(document, dict) and isinstance(document.get(html_key), str):  # text-mutate the HTML
            html = draw(byte_mutants(document[html_key].encode("utf-8", errors="surrogateescape")))
            document[html_key] = html.decode("utf-8", errors="surrogateescape")
    return json.dumps(document).encode()  # NaN / Infinity floats serialise as bare NaN / Infinity


@pytest.mark.expect("only ParseError")
@pytest.mark.promises(PARSER_CRASHES, ERRORS_UNNAMED)
@pytest.mark.parametrize("source_id", JSON_SOURCES)
def test_fuzz_json_structure(source_id, scenario):
    source = SOURCES[source_id]
    sample = sample_path(source).read_bytes()
    seen = run_fuzz(source, json_mutants(sample, "matchesHtml" if source_id == "gpu_leadergpu" else None), scenario)
    scenario.observed = summary(seen)
    assert sum(n for k, n in seen.items() if k != "parsed") > 0, "no mutant was refused: the mutator is inert"


# -- span bombs ---------------------------------------------------------------------------------------------------

# Run in a child with a memory ceiling: an unbounded colspan x rowspan grid then fails with MemoryError (or the
# timeout) instead of taking the test machine down.
SPAN_BOMB = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from pipelines.adapters import parser_for
from pipelines.errors import ParseError
from pipelines.sources.file import load_sources, sample_path
bomb = b'<td colspan="10000000" rowspan="10000000">'
for source in load_sources():
    if sample_path(source).suffix != ".html":
        continue
    body = sample_path(source).read_bytes().replace(b"<td>", bomb, 3)
    started = time.monotonic()
    try:
        parser_for(source.adapter)(body, source)
        outcome = "parsed"
    except ParseError as exc:
        outcome = type(exc).__name__
    print(json.dumps([source.id, outcome, time.monotonic() - started]), flush=True)
"""


@pytest.mark.expect("only ParseError")
@pytest.mark.promises(PARSER_CRASHES)
def test_span_bomb_is_bounded(scenario):
    child = subprocess.run(
        [sys.executable, "-c", SPAN_BOMB], cwd=ROOT, capture_output=True, text=True, timeout=90, check=False
    )
    results = [json.loads(line) for line in child.stdout.splitlines()]
    html_sources = {s.id for s in SOURCES.values() if sample_path(s).suffix == ".html"}
    # The child prints a line only for "parsed" or a ParseError: a source without one raised something else.
    scenario.measure(PARSER_CRASHES, len(html_sources - {sid for sid, _, _ in results}))
    scenario.observed = (
        ", ".join(f"{sid} {outcome} {seconds:.2f}s" for sid, outcome, seconds in results)
        or (child.stderr.strip().splitlines() or ["no output"])[-1]
    )
    assert child.returncode == 0, child.stderr[-2000:]
    assert {sid for sid, _, _ in results} == html_sources
    assert all(seconds < 5 for _, _, seconds in results), results
