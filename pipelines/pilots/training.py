"""Training pilots: one run of a workload to its target quality on an offering, with what the run spent besides
training (compile, warm-up, interrupted and redone work, checkpoint recovery), read from a CSV and landed
append-only like the inference pilots.

What the guide asks of a training comparison is kept with each run: whether it reached the target (a run that did
not is never priced), the target metric in words, and the dataset, evaluation and stopping criterion it ran under
(runs that differ in any are never compared). Hours are read exactly from their text, and bounded by what is
plausible: a compile or warm-up of days is a unit slip (seconds entered as hours), so it is refused, not priced.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Any

import duckdb
from pydantic import Field, field_validator, model_validator

from pipelines.pilots.errors import PilotInputError
from pipelines.pilots.landing import (
    InputLanded,
    already_current,
    offering_params,
    record_input,
    transaction,
    unknown_offerings,
)
from pipelines.pilots.records import (
    Offering,
    blank_to_none,
    exact_number,
    not_in_future,
    read_csv_records,
    repeated_rows,
    yes_or_no,
)
from warehouse.binding import execute

Hours = Annotated[Decimal, Field(max_digits=12, decimal_places=3, allow_inf_nan=False)]
# A compile or warm-up longer than this is a unit slip, not a measurement (a large model's Neuron compile takes
# hours: 1.5 h is 1.5 here, never 5400).
MOST_SETUP_HOURS = Decimal(72)
OVERHEADS = ("compile_hours", "warmup_hours", "interrupted_hours", "recovery_hours")
TRAINING_COLUMNS = (
    "workload",
    "provider",
    "offering",
    "region",
    "price_kind",
    "purchase_option",
    "offering_class",
    "instances",
    "wall_hours",
    *OVERHEADS,
    "quality_reached",
    "target_metric",
    "dataset",
    "evaluation",
    "stopping_criterion",
    "framework_path",
    "measured_on",
    "note",
)
REQUIRED_TRAINING_COLUMNS = {
    "workload",
    "offering",
    "price_kind",
    "instances",
    "wall_hours",
    "quality_reached",
    "target_metric",
    "dataset",
    "evaluation",
    "stopping_criterion",
    "framework_path",
    "measured_on",
}
INSERT_TRAINING = """
INSERT INTO training_run_history (input_id, row_number, workload, offering_source, provider, offering, region,
    price_kind, purchase_option, offering_class, instances, wall_hours, compile_hours, warmup_hours,
    interrupted_hours, recovery_hours, quality_reached, target_metric, dataset, evaluation, stopping_criterion,
    framework_path, measured_on, note)
VALUES ($id, $row, $workload, $source, $provider, $offering, $region, $price_kind, $purchase_option,
    $offering_class, $instances, $wall_hours, $compile_hours, $warmup_hours, $interrupted_hours, $recovery_hours,
    $quality_reached, $target_metric, $dataset, $evaluation, $stopping_criterion, $framework_path, $measured_on,
    $note)
"""


class TrainingRun(Offering):
    workload: str = Field(min_length=1)
    instances: int = Field(ge=1, le=100_000)
    # Hours of training that counted towards the target, each overhead apart (none of them included here).
    wall_hours: Hours = Field(gt=0)
    compile_hours: Hours = Field(default=Decimal(0), ge=0, le=MOST_SETUP_HOURS)
    warmup_hours: Hours = Field(default=Decimal(0), ge=0, le=MOST_SETUP_HOURS)
    interrupted_hours: Hours | None = Field(default=None, ge=0)
    recovery_hours: Hours = Field(default=Decimal(0), ge=0)
    quality_reached: bool
    target_metric: str = Field(min_length=1)
    dataset: str = Field(min_length=1)
    evaluation: str = Field(min_length=1)
    stopping_criterion: str = Field(min_length=1)
    framework_path: str = Field(min_length=1)  # a neuron_support package (torch-neuronx, JAX NeuronX) or CUDA
    measured_on: date
    note: str | None = None

    @field_validator("wall_hours", *OVERHEADS, "instances", mode="before")
    @classmethod
    def _exact_number(cls, value: Any) -> Any:
        return exact_number(value)

    _blank_note = field_validator("note", mode="before")(blank_to_none)
    _yes_no = field_validator("quality_reached", mode="before")(lambda v: yes_or_no(v, "quality target reached"))
    _not_future = field_validator("measured_on")(not_in_future)

    @model_validator(mode="after")
    def _spot_counts_its_interruptions(self) -> TrainingRun:
        if self.price_kind == "spot" and self.interrupted_hours is None:
            raise ValueError("a spot run states its interrupted_hours (0 when none): spot capacity is taken back")
        return self


def read_training_csv(origin: str, text: str) -> list[TrainingRun]:
    """Every row as a run; a bad row, a missing column or a run given twice refuses the whole file."""
    runs, problems = read_csv_records(TrainingRun, origin, text, REQUIRED_TRAINING_COLUMNS, TRAINING_COLUMNS)
    problems += [] if problems else repeated_rows([training_key(r) for r in runs], "the run")
    if not runs and not problems:
        problems.append("no data rows under the header")
    if problems:
        raise PilotInputError(origin, problems)
    return runs


def training_key(run: TrainingRun) -> str:
    """One run: the workload on one offering priced one way, under one dataset, evaluation and stopping rule."""
    return f"{run.workload!r} on {run.describe()} ({run.dataset}, {run.evaluation}, {run.stopping_criterion})"


def land_training(con: duckdb.DuckDBPyConnection, origin: str, sha: str, runs: list[TrainingRun]) -> InputLanded:
    problems = unknown_offerings(con, [(f"row {n}", r) for n, r in enumerate(runs, start=1)])
    if problems:
        raise PilotInputError(origin, problems)
    if repeated := already_current(con, sha, "training"):
        return repeated
    with transaction(con):
        input_id = record_input(con, origin, sha, "training", len(runs))
        for number, run in enumerate(runs, start=1):
            fields = run.model_dump(include=set(TRAINING_COLUMNS))
            execute(con, INSERT_TRAINING, {**fields, **offering_params(run), "id": input_id, "row": number})
    return InputLanded(input_id, len(runs))
