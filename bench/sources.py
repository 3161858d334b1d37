"""Many sources against the network bound: N declarative GPU sources spread over 20 loopback hosts
(127.0.0.1-20) that each answer after a fixed latency, refreshed through pipelines.refresh.many_sources into a fresh
warehouse, as `ratecard refresh` does.

- network bound = ceil(N / effective concurrency) x latency + the landing time measured in the same run,
  where effective concurrency = min(max_sources, hosts x per_host);
- sequential bound = N x latency (every fetch one after another);
- per-source overhead = (wall time - network bound - parse time of N pages measured alone) / N, the cost a
  source adds beyond its own fetch and parse;
- the same N sources through `ratecard refresh --sources FILE` as a process (start-up, imports, Great
  Expectations, landing, publish, summary), against the in-process wall time: what a scheduled run really waits.
"""

from __future__ import annotations

import math
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from bench.offline_refresh import CLI
from bench.report import Result, Timing, fmt_ratio, progress
from pipelines.adapters import parser_for
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.many_sources import refresh_all
from pipelines.sources.file import Concurrency, SourceSpec, load_sources, sample_path
from pipelines.sources.toml_writer import sources_toml

SCENARIO = "sources"
HOSTS = tuple(f"127.0.0.{n}" for n in range(1, 21))
LATENCY_S = 0.3
PER_HOST = 2
MAX_SOURCES = 64
SIZES = (20, 200)
TEMPLATE = "gpu_quantacloud"  # a declarative HTML table: the kind of source most providers are


@contextmanager
def delayed_server(host: str, body: bytes, latency_s: float) -> Iterator[str]:
    """Answers every GET with `body` after `latency_s`; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            time.sleep(latency_s)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def bench_sources(n: int, base_urls: list[str], template: SourceSpec) -> list[SourceSpec]:
    return [
        SourceSpec.model_validate(
            {
                **template.model_dump(),
                "id": f"gpu_bench_{i:03d}",
                "url": f"{base_urls[i % len(base_urls)]}/p{i}",
                "options": {**template.options, "provider": f"Bench {i:03d}"},
            }
        )
        for i in range(n)
    ]


def one_refresh(sources: list[SourceSpec], workdir: Path) -> tuple[float, float]:
    """(wall seconds, seconds spent landing) for one refresh of `sources` into a fresh warehouse."""
    landing_started: dict[str, float] = {}
    landing: list[float] = []

    def on_phase(source_id: str, phase: str) -> None:
        if phase == "landing":
            landing_started[source_id] = time.perf_counter()

    def on_done(outcome: object) -> None:
        landing.append(time.perf_counter() - landing_started[outcome.source_id])  # type: ignore[attr-defined]

    db = workdir / f"prices-{len(sources)}-{time.monotonic_ns()}.duckdb"
    with Fetcher(FetchSettings(per_host_limit=PER_HOST)) as fetcher:
        started = time.perf_counter()
        outcomes = refresh_all(
            sources,
            db_path=db,
            archive=Archive(workdir / "archive"),
            fetcher=fetcher,
            max_sources=MAX_SOURCES,
            on_phase=on_phase,
            on_done=on_done,
        )
        wall = time.perf_counter() - started
    bad = [o for o in outcomes if o.status != "landed"]
    assert not bad, [str(o.error) for o in bad[:3]]
    return wall, sum(landing)


def cli_refresh(sources: list[SourceSpec], workdir: Path) -> float:
    """Wall seconds of `ratecard refresh --sources FILE` as a process of this interpreter, into a fresh file."""
    sources_file = workdir / f"sources-{len(sources)}.toml"
    sources_file.write_text(sources_toml(sources, Concurrency(max_sources=MAX_SOURCES, per_host=PER_HOST)))
    db = workdir / f"cli-{len(sources)}-{time.monotonic_ns()}" / "prices.duckdb"
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CLI, "refresh", "--sources", str(sources_file), "--db", str(db)],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        said = done.stderr[-2000:]
        raise RuntimeError(f"ratecard refresh of {len(sources)} sources exited {done.returncode}: {said}")
    return wall


def parse_seconds(template: SourceSpec, body: bytes, n: int) -> float:
    parse = parser_for(template.adapter)
    started = time.perf_counter()
    for _ in range(n):
        parse(body, template)
    return time.perf_counter() - started


def run(sizes: tuple[int, ...] = SIZES, latency_s: float = LATENCY_S) -> list[Result]:
    template = next(s for s in load_sources() if s.id == TEMPLATE)
    body = sample_path(template).read_bytes()
    results: list[Result] = []
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        urls = [stack.enter_context(delayed_server(host, body, latency_s)) for host in HOSTS]
        effective = min(MAX_SOURCES, len(HOSTS) * PER_HOST)
        one_refresh(bench_sources(2, urls, template), Path(tmp))  # warm-up: imports, first GE context
        for n in sizes:
            progress(f"{SCENARIO}: {n} sources over {len(HOSTS)} hosts, {latency_s * 1000:.0f} ms latency")
            sources = bench_sources(n, urls, template)
            wall, landing = one_refresh(sources, Path(tmp))
            bound = math.ceil(n / effective) * latency_s + landing
            sequential = n * latency_s
            overhead = (wall - bound - parse_seconds(template, body, n)) / n
            results += [
                Result(
                    SCENARIO,
                    f"refresh {n} sources",
                    Timing((wall,)),
                    rows=n,
                    note=f"max_sources {MAX_SOURCES}, per_host {PER_HOST}, {len(HOSTS)} hosts",
                ),
                Result(
                    SCENARIO,
                    f"  landing time within it ({n} sources)",
                    Timing((landing,)),
                    note="one writer, one transaction per source",
                ),
                Result(
                    SCENARIO,
                    f"RATIO wall / network bound, N={n}",
                    value=fmt_ratio(wall / bound),
                    note=f"bound {bound:.2f} s = ceil({n}/{effective}) x {latency_s} s + landing; goal <= 1.5x",
                ),
                Result(
                    SCENARIO,
                    f"RATIO wall / sequential bound, N={n}",
                    value=fmt_ratio(wall / sequential),
                    note=f"sequential {sequential:.1f} s = {n} x {latency_s} s; goal <= 0.2x",
                ),
                Result(
                    SCENARIO,
                    f"per-source overhead, N={n}",
                    value=f"{overhead * 1000:.0f} ms",
                    note="(wall - bound - parse time) / N; goal <= 50 ms",
                ),
            ]
            if n == max(sizes):
                results += cli_results(sources, Path(tmp), wall)
    return results


def cli_results(sources: list[SourceSpec], workdir: Path, in_process: float) -> list[Result]:
    progress(f"{SCENARIO}: the same {len(sources)} sources through the CLI, as a process")
    cli = cli_refresh(sources, workdir)
    return [
        Result(
            SCENARIO,
            f"ratecard refresh of {len(sources)} sources (a process)",
            Timing((cli,)),
            rows=len(sources),
            note="start-up, imports, GE, landing, publish, summary",
        ),
        Result(
            SCENARIO,
            f"RATIO CLI / in-process, N={len(sources)}",
            value=fmt_ratio(cli / in_process),
            note=f"in-process wall {in_process:.2f} s, measured above; goal <= 2x",
        ),
    ]
