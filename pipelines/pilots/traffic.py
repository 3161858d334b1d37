"""Traffic profiles: a workload's monthly volume and its shape in the day, from the command's options or a CSV,
validated by pydantic (each problem names its row and field) and landed append-only like the pilots.

The shape is what decides between billings: an always-on deployment is sized for the peak and billed every hour;
a serverless one is billed for its busy time plus a cold start and an idle tail per worker per active period.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import duckdb
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pipelines.pilots.errors import PilotInputError
from pipelines.pilots.landing import InputLanded, already_current, record_input, transaction
from pipelines.pilots.records import exact_number, model_from_fields, read_csv_records, repeated_rows
from warehouse.binding import execute

TRAFFIC_COLUMNS = (
    "workload",
    "monthly_units",
    "active_hours_per_day",
    "peak_units_per_hour",
    "days_per_month",
    "cold_start_seconds",
    "note",
)
REQUIRED_TRAFFIC_COLUMNS = {"workload", "monthly_units", "active_hours_per_day", "peak_units_per_hour"}
INSERT_TRAFFIC = """
INSERT INTO traffic_profile_history (input_id, row_number, workload, monthly_units, active_hours_per_day,
    peak_units_per_hour, days_per_month, cold_start_seconds, note)
VALUES ($id, $row, $workload, $monthly_units, $active_hours_per_day, $peak_units_per_hour, $days_per_month,
    $cold_start_seconds, $note)
"""


class TrafficProfile(BaseModel):
    model_config = ConfigDict(frozen=True, str_strip_whitespace=True)

    workload: str = Field(min_length=1)
    monthly_units: Decimal = Field(ge=0, max_digits=24, decimal_places=0, allow_inf_nan=False)
    active_hours_per_day: Decimal = Field(ge=0, le=24, max_digits=6, decimal_places=3, allow_inf_nan=False)
    peak_units_per_hour: Decimal = Field(ge=0, max_digits=24, decimal_places=3, allow_inf_nan=False)
    days_per_month: Decimal = Field(default=Decimal(30), gt=0, le=31, max_digits=5, decimal_places=2)
    # Up to a day: a large model's first Neuron compile on a fresh worker takes hours (1.5 h is 5400 here); a day
    # and more is a unit slip (minutes or milliseconds given as seconds).
    cold_start_seconds: int = Field(default=0, ge=0, le=86_400)
    note: str | None = None

    @field_validator(
        "monthly_units", "active_hours_per_day", "peak_units_per_hour", "days_per_month", "cold_start_seconds",
        mode="before",
    )  # fmt: skip
    @classmethod
    def _exact_number(cls, value: Any) -> Any:
        return exact_number(value)

    @field_validator("note", mode="before")
    @classmethod
    def _blank_note(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _peak_can_carry_the_volume(self) -> TrafficProfile:
        if self.monthly_units == 0:
            return self
        if self.active_hours_per_day == 0 or self.peak_units_per_hour == 0:
            raise ValueError("a workload with monthly units needs active hours and a peak above 0")
        most = self.peak_units_per_hour * self.active_hours_per_day * self.days_per_month
        if self.monthly_units > most:
            raise ValueError(
                f"monthly_units {self.monthly_units} exceed what the peak can carry in the active hours "
                f"({self.peak_units_per_hour} x {self.active_hours_per_day} h x {self.days_per_month} days = {most})"
            )
        return self


def traffic_from_fields(where: str, fields: dict[str, Any], origin: str | None = None) -> TrafficProfile:
    return model_from_fields(TrafficProfile, where, fields, origin)


def read_traffic_csv(origin: str, text: str) -> list[TrafficProfile]:
    """Every row as a profile; a bad row, a missing column or a workload given twice refuses the whole file."""
    profiles, problems = read_csv_records(TrafficProfile, origin, text, REQUIRED_TRAFFIC_COLUMNS, TRAFFIC_COLUMNS)
    # Only in a file whose every row read: then the n-th profile is data row n.
    problems += [] if problems else repeated_rows([repr(p.workload) for p in profiles], "workload")
    if not profiles and not problems:
        problems.append("no data rows under the header")
    if problems:
        raise PilotInputError(origin, problems)
    return profiles


def land_traffic(con: duckdb.DuckDBPyConnection, origin: str, sha: str, profiles: list[TrafficProfile]) -> InputLanded:
    if repeated := already_current(con, sha, "traffic"):
        return repeated
    with transaction(con):
        input_id = record_input(con, origin, sha, "traffic", len(profiles))
        for number, profile in enumerate(profiles, start=1):
            execute(con, INSERT_TRAFFIC, {"id": input_id, "row": number, **profile.model_dump()})
    return InputLanded(input_id, len(profiles))
