"""Scenario 3 — parsing the bundled sample pages (pipelines/samples/aws/*.html).

Per page: the full adapter call `parser_for(src.adapter)(body, src)` (BeautifulSoup with lxml, table
location, cell parsing, pydantic validation -> SourceBatch), in ms per page; the note gives how much of it
is building the soup alone. Sources come from pipelines.sources.file.load_sources(), bodies are the bundled
samples read once up front (no HTTP).

On the largest sample, BeautifulSoup(body, "lxml") vs BeautifulSoup(body, "html.parser") is timed (plus bare
lxml.html.fromstring, to show how much is BeautifulSoup's own tree building), and the
whole adapter is re-run with its soup_of switched to html.parser (restored afterwards) to see what the
parser choice is worth end to end, and whether both parsers yield the same batch.
"""

from __future__ import annotations

from contextlib import contextmanager

import lxml.html
from bs4 import BeautifulSoup

from bench.report import Result, fmt_ratio, measure, progress, ratio
from pipelines.adapters import adapter_module, parser_for
from pipelines.fetch.encoding import decode_html
from pipelines.refresh.fan_out import sample_units
from pipelines.sources.file import load_sources, sample_path

SCENARIO = "3 parsing"
REPS_PAGE = 30
REPS_SOUP = 50


@contextmanager
def soup_parser(adapter: str, features: str):
    """Temporarily make one adapter module build its soup with `features` instead of lxml."""
    module = adapter_module(adapter)
    original = module.soup_of
    module.soup_of = lambda body, charset=None: BeautifulSoup(decode_html(body, charset), features)
    try:
        yield
    finally:
        module.soup_of = original


def summary(batch) -> str:
    """Row counts of any kind of batch (AWS specs/prices, GPU offers, FX rates)."""
    parts = [
        f"{len(getattr(batch, name))} {name}" for name in ("specs", "prices", "offers", "rates") if hasattr(batch, name)
    ]
    return ", ".join(parts)


def run() -> list[Result]:
    sources = [unit for source in load_sources() for unit in sample_units(source)]  # price list: its regions
    bodies = {s.id: sample_path(s).read_bytes() for s in sources}
    results: list[Result] = []
    for src in sources:
        body, parse = bodies[src.id], parser_for(src.adapter)
        progress(f"{SCENARIO}: {src.sample} x {REPS_PAGE + 1}")
        t_parse = measure(lambda _, parse=parse, body=body, src=src: parse(body, src), reps=REPS_PAGE)
        batch = parse(body, src)
        note = summary(batch)
        if src.sample.endswith(".html"):
            t_soup = measure(lambda _, body=body: BeautifulSoup(body, "lxml"), reps=REPS_PAGE)
            note += f"; soup alone {t_soup.median * 1e3:.2f} ms ({t_soup.median / t_parse.median:.0%})"
        results.append(Result(SCENARIO, f"parse {src.sample} ({len(body):,} B)", t_parse, note=note))

    # The lxml / html.parser comparison swaps the soup builder the AWS table adapters use.
    largest = max((s for s in sources if s.kind == "aws"), key=lambda s: len(bodies[s.id]))
    body, parse = bodies[largest.id], parser_for(largest.adapter)
    progress(f"{SCENARIO}: lxml vs html.parser on {largest.sample} x {REPS_SOUP + 1}")
    t_lxml = measure(lambda _: BeautifulSoup(body, "lxml"), reps=REPS_SOUP)
    t_html = measure(lambda _: BeautifulSoup(body, "html.parser"), reps=REPS_SOUP)
    t_raw = measure(lambda _: lxml.html.fromstring(body), reps=REPS_SOUP)
    t_full_lxml = measure(lambda _: parse(body, largest), reps=REPS_PAGE)
    batch_lxml = parse(body, largest)
    with soup_parser(largest.adapter, "html.parser"):
        t_full_html = measure(lambda _: parse(body, largest), reps=REPS_PAGE)
        same = parse(body, largest) == batch_lxml
    name = largest.sample
    results += [
        Result(SCENARIO, f"BeautifulSoup lxml, {name}", t_lxml, note="soup construction only"),
        Result(SCENARIO, f"BeautifulSoup html.parser, {name}", t_html, note="soup construction only"),
        Result(
            SCENARIO,
            "RATIO html.parser ÷ lxml, soup",
            value=fmt_ratio(ratio(t_html.median, t_lxml.median)),
            note=">1 means lxml is faster",
        ),
        Result(
            SCENARIO,
            f"raw lxml.html.fromstring, {name}",
            t_raw,
            note=f"context, not used by the project: bs4+lxml is {fmt_ratio(ratio(t_lxml.median, t_raw.median))} this",
        ),
        Result(
            SCENARIO,
            f"full parse with html.parser, {name}",
            t_full_html,
            note=f"vs {t_full_lxml.median * 1e3:.2f} ms with lxml; same SourceBatch: {'yes' if same else 'NO'}",
        ),
        Result(
            SCENARIO,
            "RATIO html.parser ÷ lxml, full parse",
            value=fmt_ratio(ratio(t_full_html.median, t_full_lxml.median)),
            note="whole adapter call",
        ),
    ]
    return results
