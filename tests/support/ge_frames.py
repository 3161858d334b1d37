"""Helper the GE gate tests share: see the frames a gate hands to Great Expectations."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pandas as pd
import pytest

from schemas.gx_runner import ValidationReport, run_suite


def spy_on_frames(monkeypatch: pytest.MonkeyPatch, *gates: ModuleType) -> dict[str, pd.DataFrame]:
    """Record, by suite name, each frame the `gates` hand to run_suite; the real run_suite still runs."""
    seen: dict[str, pd.DataFrame] = {}

    def spying_run_suite(name: str, expectations: list[Any], frame: pd.DataFrame, rows: list) -> ValidationReport:
        seen[name] = frame
        return run_suite(name, expectations, frame, rows)

    for gate in gates:
        monkeypatch.setattr(gate, "run_suite", spying_run_suite)
    return seen


BETWEEN = "expect_column_values_to_be_between"
NOT_NULL = "expect_column_values_to_not_be_null"


def failures(reports: list[ValidationReport]) -> dict[tuple[str, str | None], list]:
    """Each failed expectation, by (expectation, column), with the values it quoted."""
    return {(o.expectation, o.column): o.partial_unexpected for r in reports for o in r.outcomes if not o.success}
