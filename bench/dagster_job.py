"""The scheduled Dagster price job against the network bound and against the CLI path: N declarative GPU
sources over the 20 loopback hosts of bench/sources.py (300 ms latency), refreshed once by `refresh_prices`
(in process, ephemeral instance) and once by pipelines.refresh.many_sources as `ratecard refresh` does, each into a
fresh warehouse.

- network bound = ceil(N / effective concurrency) x latency + the CLI run's landing time (same run);
- Dagster cost per source = (Dagster wall - CLI wall) / N: what the job adds to each source over the CLI;
- Dagster fixed cost = the same difference for a single source, i.e. one run's overhead; what is left per
  source beyond it is the marginal cost.
"""

from __future__ import annotations

import math
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from bench.report import Result, Timing, fmt_ratio, progress
from bench.sources import HOSTS, LATENCY_S, MAX_SOURCES, PER_HOST, TEMPLATE, bench_sources, delayed_server, one_refresh
from pipelines.sources.file import Concurrency, SourceSpec, load_sources, sample_path
from pipelines.sources.toml_writer import sources_toml

SCENARIO = "dagster"
SIZE = 20


def dagster_refresh(sources: list[SourceSpec], workdir: Path) -> float:
    """Wall seconds of one `refresh_prices` run over `sources` into a fresh warehouse; every source must land."""
    import dagster as dg

    from pipelines.definitions import build_definitions
    from pipelines.orchestration.resources import FetcherResource

    stamp = f"{len(sources)}-{time.monotonic_ns()}"
    sources_file = workdir / f"sources-{stamp}.toml"
    sources_file.write_text(sources_toml(sources, Concurrency(max_sources=MAX_SOURCES, per_host=PER_HOST)))
    db = workdir / f"dagster-{stamp}" / "prices.duckdb"
    fetcher = FetcherResource(max_attempts=1)
    defs = build_definitions(sources_file, db, fetcher=fetcher, fetch_retry_policy=dg.RetryPolicy(max_retries=0))
    job = defs.resolve_job_def("refresh_prices")
    with dg.DagsterInstance.ephemeral() as instance:
        started = time.perf_counter()
        # Only the bench's own sources (the job also lands the in-repo reference files, which the CLI path here
        # does not: leaving them in would charge their landing to Dagster).
        keys = [dg.AssetKey(["sources", s.id]) for s in sources]
        result = job.execute_in_process(instance=instance, raise_on_error=False, asset_selection=keys)
        wall = time.perf_counter() - started
        landed = len(result.get_asset_materialization_events())
    assert result.success and landed == len(sources), f"{landed} of {len(sources)} landed"
    return wall


def run(n: int = SIZE, latency_s: float = LATENCY_S) -> list[Result]:
    template = next(s for s in load_sources() if s.id == TEMPLATE)
    body = sample_path(template).read_bytes()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        urls = [stack.enter_context(delayed_server(host, body, latency_s)) for host in HOSTS]
        warm = bench_sources(2, urls, template)
        dagster_refresh(warm, workdir)  # warm-up: Dagster, GE and DuckDB imports and first use
        one_refresh(warm, workdir)
        progress(f"{SCENARIO}: 1 and {n} sources over {len(HOSTS)} hosts, {latency_s * 1000:.0f} ms latency")
        single = bench_sources(1, urls, template)
        fixed = dagster_refresh(single, workdir) - one_refresh(single, workdir)[0]
        sources = bench_sources(n, urls, template)
        dagster_wall = dagster_refresh(sources, workdir)
        cli_wall, landing = one_refresh(sources, workdir)
    effective = min(MAX_SOURCES, len(HOSTS) * PER_HOST)
    bound = math.ceil(n / effective) * latency_s + landing
    sequential = n * latency_s
    marginal = (dagster_wall - cli_wall - fixed) / max(n - 1, 1)
    return [
        Result(SCENARIO, f"Dagster refresh_prices, {n} sources", Timing((dagster_wall,)), rows=n),
        Result(SCENARIO, f"CLI path (refresh_all), {n} sources", Timing((cli_wall,)), rows=n),
        Result(SCENARIO, f"  landing time within the CLI run ({n} sources)", Timing((landing,))),
        figure(
            f"RATIO Dagster wall / network bound, N={n}",
            fmt_ratio(dagster_wall / bound),
            f"bound {bound:.2f} s = ceil({n}/{effective}) x {latency_s} s + landing",
        ),
        figure(
            f"RATIO Dagster wall / CLI wall, N={n}",
            fmt_ratio(dagster_wall / cli_wall),
            "same sources, same servers, fresh warehouse each",
        ),
        figure(
            f"RATIO Dagster wall / sequential bound, N={n}",
            fmt_ratio(dagster_wall / sequential),
            f"sequential {sequential:.1f} s = {n} x {latency_s} s: one asset step after another",
        ),
        figure(f"Dagster cost per source, N={n}", ms(dagster_wall - cli_wall, n), "(Dagster wall - CLI wall) / N"),
        figure(f"  of which beyond the fixed cost, N={n}", ms(marginal, 1), "(the above x N - fixed cost) / (N - 1)"),
        figure("Dagster fixed cost per run", ms(fixed, 1), "Dagster wall - CLI wall, one source"),
    ]


def figure(name: str, value: str, note: str) -> Result:
    return Result(SCENARIO, name, value=value, note=note)


def ms(seconds: float, per: int) -> str:
    return f"{seconds / per * 1000:.0f} ms"
