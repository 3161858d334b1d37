"""Scenario 4 — the Great Expectations gate: what validating a batch costs, one by one and stacked.

Batches: the 16 bundled samples parsed and prepared as the refresh prepares them (GPU listings normalised to
USD with the bundled ECB rates), and 200 small GPU batches (up to 5 listings each, cut from the GPU samples).
Three ways of running the same suites:
- fresh context: the gate as it was before (a new ephemeral context per batch, suite and validation
  definition registered, ValidationDefinition.run, which also stores the result), swapped in for the timing;
- one by one: validate_batch / validate_listings / validate_fx as kinds.py calls them (one context per process);
- stacked: validate_batch_many / validate_listings_many, one GE run per suite for all batches of a kind.
Sample figures are medians of REPS calls per batch, fresh-context ones a single call; for the 200 small batches
the first 20 are timed one by one (one call each) and "× 200" scales that median. `python -m bench.gate
--profile [--before]` profiles the 16 batches one by one with cProfile instead (--before: the fresh-context gate).
"""

from __future__ import annotations

import cProfile
import gc
import pstats
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any

from bench.fresh_context import fresh_context_per_run
from bench.report import Result, Timing, fmt_ratio, measure, progress, ratio
from pipelines.adapters import parser_for
from pipelines.aws import suite as aws_suite
from pipelines.gpu import suite as gpu_suite
from pipelines.gpu.kind import landed_fx
from pipelines.gpu.normalise import FxTable
from pipelines.gpu.records import GpuListing
from pipelines.kind import Kind, LandedRead, T
from pipelines.kinds import kind_named
from pipelines.pricelist.landing import latest_type_attributes
from pipelines.refresh.fan_out import sample_units
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from schemas import gx_results
from schemas.gx_runner import ValidationReport, import_gx

SCENARIO = "4 GE gate"
REPS = 3  # timed runs of each stacked measurement
REPS_ALONE = 2  # timed runs of each sample batch one by one (fresh-context: one, as each costs most of a second)
SMALL_BATCHES = 200
SMALL_BATCH_ROWS = 5
SMALL_TIMED_ALONE = 10  # of the 200, how many are timed one by one (each costs a whole GE run)
# Whether each sample is also timed with a fresh GE context (the cost before contexts were shared), and on how many
# samples the kept-results pass runs (None: all). The smoke test turns both down: it checks coverage, not timings.
FRESH_CONTEXT = True
KEPT_SAMPLES: int | None = None


@dataclass(frozen=True)
class SampleBatch:
    source: SourceSpec
    kind: Kind
    batch: Any  # prepared: what kind.validate receives


def sample_batches() -> list[SampleBatch]:
    """Every bundled sample parsed and prepared as check_body prepares it, at the latest bundled ECB date."""
    sources = [unit for source in load_sources() for unit in sample_units(source)]  # price list: its regions
    parsed = {s.id: parser_for(s.adapter)(sample_path(s).read_bytes(), s) for s in sources}
    rates = [rate for s in sources if s.kind == "fx" for rate in parsed[s.id].rates]
    state = SampleState(FxTable.of(rates), [parsed[s.id] for s in sources if s.kind == "pricelist"])
    on = max(rate.rate_date for rate in rates)
    batches = []
    for source in sources:
        kind = kind_named(source.kind)
        batches.append(SampleBatch(source, kind, kind.prepare(parsed[source.id], source, on, state).batch))
    return batches


class SampleState:
    """What prepare reads from the warehouse, taken from the samples themselves: the ECB rates and the price-list
    regions' type attributes (for the spot feed's quotes)."""

    def __init__(self, rates: FxTable, pricelist_batches: list[Any]):
        self.rates = rates
        self.types = {
            t.instance_type: (t.price_list_gpu, t.price_list_gpu_memory) for b in pricelist_batches for t in b.types
        }

    def read(self, query: LandedRead[T]) -> T:
        """The sample's answer to the two reads prepare makes; any other read is a bench bug, named."""
        answers: dict[Any, Any] = {landed_fx: self.rates, latest_type_attributes: self.types}
        if query not in answers:
            raise KeyError(f"the gate bench's samples cannot answer {query!r}")
        return answers[query]  # type: ignore[no-any-return]


def small_gpu_batches(samples: list[SampleBatch]) -> dict[str, list[GpuListing]]:
    """SMALL_BATCHES batches of up to SMALL_BATCH_ROWS listings, each cut from one provider (so its keys are unique)."""
    pools = [s.batch.listings for s in samples if s.kind.name == "gpu" and s.batch.listings]
    chunks = [pool[i : i + SMALL_BATCH_ROWS] for pool in pools for i in range(0, len(pool), SMALL_BATCH_ROWS)]
    return {f"small_{n:03d}": chunks[n % len(chunks)] for n in range(SMALL_BATCHES)}


def validate_stacked_by_kind(samples: list[SampleBatch]) -> dict[str, list[ValidationReport]]:
    """Every sample batch validated with one stacked run per suite (FX has one source: validated alone)."""
    aws = [s for s in samples if s.kind.name == "aws"]
    reports = aws_suite.validate_batch_many(
        {s.source.id: s.batch for s in aws}, expects_prices={s.source.id: s.source.expects_prices for s in aws}
    )
    gpu = {s.source.id: s.batch.listings for s in samples if s.kind.name == "gpu"}
    reports |= gpu_suite.validate_listings_many(gpu)
    reports |= {s.source.id: validate_alone(s) for s in samples if s.kind.name == "fx"}
    return reports


def per_call(calls: Sequence[Callable[[], object]], reps: int = 1) -> list[Timing]:
    """`reps` timed runs of each call, round-robin (GC paused while timing), after one untimed warm-up call."""
    calls[0]()
    gc.collect()
    samples: list[list[float]] = [[] for _ in calls]
    for _ in range(reps):
        for call, own in zip(calls, samples, strict=True):
            gc.disable()
            try:
                start = time.perf_counter()
                call()
                own.append(time.perf_counter() - start)
            finally:
                gc.enable()
    return [Timing(tuple(own)) for own in samples]


def pooled(timings: list[Timing]) -> Timing:
    return Timing(tuple(sample for timing in timings for sample in timing.samples))


def validate_alone(sample: SampleBatch) -> list[ValidationReport]:
    """One source validated on its own, as a refresh of just that source does."""
    return sample.kind.validate_many({sample.source.id: (sample.source, sample.batch)})[sample.source.id]


def _all_pass(reports: dict[str, list[ValidationReport]]) -> str:
    failing = [source_id for source_id, found in reports.items() if not all(r.success for r in found)]
    return "every batch passes" if not failing else f"FAILING: {', '.join(failing)}"


def _rows(sample: SampleBatch) -> int:
    return len(sample.batch.rates) if sample.kind.name == "fx" else sample.kind.row_count(sample.batch)


def _sample_results(samples: list[SampleBatch]) -> list[Result]:
    calls = [partial(validate_alone, s) for s in samples]
    n = len(samples)
    progress(f"{SCENARIO}: {n} samples one by one x {REPS_ALONE}, then with a fresh context each")
    alone = per_call(calls, REPS_ALONE)
    if FRESH_CONTEXT:
        with fresh_context_per_run():
            fresh = per_call(calls)
    else:
        fresh = alone
    progress(f"{SCENARIO}: {n} samples stacked x {REPS + 1}")
    stacked = measure(lambda _: validate_stacked_by_kind(samples), reps=REPS)
    results = [
        Result(
            SCENARIO,
            f"one by one, {sample.source.id} ({_rows(sample)} rows)",
            timing,
            note=f"fresh context (before): {before.median * 1e3:.0f} ms",
        )
        for sample, timing, before in zip(samples, alone, fresh, strict=True)
    ]
    fresh_total, alone_total = (sum(t.median for t in timings) for timings in (fresh, alone))
    return [
        *results,
        Result(
            SCENARIO,
            f"{n} samples, fresh context (before), sum",
            value=f"{fresh_total:.2f} s",
            note=f"{fresh_total / n * 1e3:.0f} ms per batch",
        ),
        Result(
            SCENARIO,
            f"{n} samples, one by one, sum of medians",
            value=f"{alone_total:.2f} s",
            note=f"{alone_total / n * 1e3:.0f} ms per batch",
        ),
        Result(
            SCENARIO,
            f"{n} samples stacked by kind",
            stacked,
            note=f"{stacked.median / n * 1e3:.0f} ms per batch; {_all_pass(validate_stacked_by_kind(samples))}",
        ),
        Result(
            SCENARIO,
            "RATIO fresh context ÷ stacked, samples",
            value=fmt_ratio(ratio(fresh_total, stacked.median)),
            note="summed single calls ÷ one stacked median",
        ),
    ]


def _small_batch_results(samples: list[SampleBatch]) -> list[Result]:
    small = small_gpu_batches(samples)
    timed = list(small.values())[:SMALL_TIMED_ALONE]
    progress(f"{SCENARIO}: {len(timed)} small GPU batches one by one, then with a fresh context each")
    calls = [partial(gpu_suite.validate_listings, b) for b in timed]
    alone = pooled(per_call(calls))
    if FRESH_CONTEXT:
        with fresh_context_per_run():
            fresh = pooled(per_call(calls))
    else:
        fresh = alone
    progress(f"{SCENARIO}: {len(small)} small GPU batches stacked x {REPS + 1}")
    stacked = measure(lambda _: gpu_suite.validate_listings_many(small), reps=REPS)
    n, rows = len(small), sum(len(b) for b in small.values())
    per_batch = stacked.median / n
    return [
        Result(
            SCENARIO,
            f"small GPU batch, fresh context (before), {len(timed)} timed",
            fresh,
            note=f"× {n} ≈ {fresh.median * n:.1f} s",
        ),
        Result(
            SCENARIO,
            f"small GPU batch, one by one, {len(timed)} timed",
            alone,
            note=f"× {n} ≈ {alone.median * n:.1f} s",
        ),
        Result(
            SCENARIO,
            f"{n} small GPU batches stacked ({rows} rows)",
            stacked,
            rows=rows,
            note=f"{per_batch * 1e3:.1f} ms per batch; {_all_pass(gpu_suite.validate_listings_many(small))}",
        ),
        Result(
            SCENARIO, "RATIO fresh context ÷ stacked, per small batch", value=fmt_ratio(ratio(fresh.median, per_batch))
        ),
    ]


def _kept_results(samples: list[SampleBatch]) -> list[Result]:
    """The same batches validated again in the same process: the results kept from the first run (gx_results)."""
    calls = [partial(validate_alone, s) for s in samples]
    n = len(samples)
    progress(f"{SCENARIO}: {n} samples once, then again x {REPS_ALONE} from the kept results")
    gx_results.forget()
    with gx_results.kept():
        first = sum(t.median for t in per_call(calls))
        again = sum(t.median for t in per_call(calls, REPS_ALONE))
    return [
        Result(SCENARIO, f"{n} samples validated again, kept results, sum of medians", value=f"{again * 1e3:.1f} ms"),
        Result(
            SCENARIO,
            "RATIO first validation ÷ the same batch again",
            value=fmt_ratio(ratio(first, again)),
            note=f"first run {first:.2f} s for the {n} samples",
        ),
    ]


def run() -> list[Result]:
    samples = sample_batches()
    progress(f"{SCENARIO}: importing great_expectations")
    import_gx()
    with gx_results.bypassed():  # GE itself is timed here: a kept result would time the memo instead
        timed = [*_sample_results(samples), *_small_batch_results(samples)]
    return [*timed, *_kept_results(samples[:KEPT_SAMPLES])]


def _validate_one_by_one(samples: list[SampleBatch]) -> None:
    for sample in samples:
        validate_alone(sample)


def profile(*, before: bool, top: int = 30) -> None:
    """cProfile of the 16 sample batches validated one by one (after one warm-up pass), by cumulative time;
    `before` profiles the fresh-context gate instead."""
    samples = sample_batches()
    with fresh_context_per_run() if before else nullcontext():
        _validate_one_by_one(samples)
        profiler = cProfile.Profile()
        profiler.runcall(_validate_one_by_one, samples)
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(top)


if __name__ == "__main__":  # python -m bench.gate --profile [--before]
    if "--profile" not in sys.argv:
        sys.exit("python -m bench gate runs the timings; this entry point only profiles: --profile [--before]")
    profile(before="--before" in sys.argv)
