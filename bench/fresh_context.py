"""The GE gate as it ran before it kept one context per process: a new ephemeral context, suite and validation
definition per run (ValidationDefinition.run, which also stores the result). The gate bench swaps it in to time
the difference (bench/gate.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pandas as pd

from pipelines.aws import suite as aws_suite
from pipelines.fx import suite as fx_suite
from pipelines.gpu import suite as gpu_suite
from schemas import gx_stacked
from schemas.gx_runner import ValidationReport, ephemeral_context, import_gx, in_declared_order, outcome_of, report_of


def validate_frame_fresh_context(name: str, expectations_: list[Any], frame: pd.DataFrame, result_format: str) -> list:
    """A GE run as the gate ran it before it kept one context: everything registered anew, the result stored."""
    gx, _ = import_gx()
    ctx = ephemeral_context(gx)
    data = ctx.data_sources.add_pandas(name).add_dataframe_asset(name).add_batch_definition_whole_dataframe(name)
    suite = ctx.suites.add(gx.ExpectationSuite(name=name, expectations=expectations_))
    definition = ctx.validation_definitions.add(gx.ValidationDefinition(name=name, data=data, suite=suite))
    result = definition.run(batch_parameters={"dataframe": frame}, result_format=result_format)
    return in_declared_order(suite, result.results)


def run_suite_fresh_context(
    name: str, expectations_: list[Any], frame: pd.DataFrame, rows: list[dict[str, Any]]
) -> ValidationReport:
    """run_suite as it was before the gate kept one context."""
    results = validate_frame_fresh_context(name, expectations_, frame, "SUMMARY")
    outcomes = [
        outcome_of(r.expectation_config, bool(r.success), r.result or {}, r.exception_info, rows) for r in results
    ]
    return report_of(name, outcomes, len(frame))


@contextmanager
def fresh_context_per_run() -> Iterator[None]:
    """Temporarily run every suite, alone or stacked, the way the gate did before (restored afterwards)."""
    swaps = [
        (aws_suite, "run_suite", run_suite_fresh_context),
        (gpu_suite, "run_suite", run_suite_fresh_context),
        (fx_suite, "run_suite", run_suite_fresh_context),
        (gx_stacked, "run_ge", validate_frame_fresh_context),
    ]
    originals = [getattr(module, name) for module, name, _ in swaps]
    for module, name, swapped in swaps:
        setattr(module, name, swapped)  # a module attribute swapped on purpose
    try:
        yield
    finally:
        for (module, name, _), original in zip(swaps, originals, strict=True):
            setattr(module, name, original)
