"""pydantic records for pilot results and migration plans, and reading them from CSV rows.

Numbers are read as Decimal from their text (never through float); a row that fails names its row number and
field. An offering is an AWS instance (no provider) or a provider's GPU listing (provider given).
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pipelines.pilots.errors import PilotInputError

M = TypeVar("M", bound=BaseModel)
WorkUnit = Literal["tokens", "steps", "requests"]
# Optional: the conditions a pilot ran under and what its window billed (the guide: same latency target,
# representative lengths and concurrency; idle time recorded as well as busy time).
CONDITION_COLUMNS = (
    "latency_target_ms",
    "p95_latency_ms",
    "input_units",
    "output_units",
    "concurrency",
    "billed_hours",
    "busy_hours",
    "accepted_outputs",
)
# Read from their text: commas and underscores as thousands separators, never through float.
EXACT_NUMBERS = (
    "units_per_hour",
    "latency_target_ms",
    "p95_latency_ms",
    "billed_hours",
    "busy_hours",
    "input_units",
    "output_units",
    "concurrency",
    "accepted_outputs",
)
PILOT_COLUMNS = (
    "workload",
    "provider",
    "offering",
    "region",
    "price_kind",
    "work_unit",
    "units_per_hour",
    "quality_passed",
    "measured_on",
    "note",
    *CONDITION_COLUMNS,
    "purchase_option",  # the terms of a reserved or Savings Plan price
    "offering_class",
    "framework_path",  # what ran: a neuron_support package or framework, or CUDA (the software gate reads it)
)
REQUIRED_COLUMNS = {
    "workload",
    "offering",
    "price_kind",
    "work_unit",
    "units_per_hour",
    "quality_passed",
    "measured_on",
}
YES = {"yes", "y", "true", "1", "passed", "pass"}
NO = {"no", "n", "false", "0", "failed", "fail"}


def blank_to_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


def exact_number(value: Any) -> Any:
    """A figure as text for pydantic to read exactly (thousands separators dropped); a float already lost digits,
    so it is refused instead of guessed."""
    if isinstance(value, float):
        raise ValueError("give the figure as text or Decimal, not a float")
    return value.replace(",", "").replace("_", "").strip() if isinstance(value, str) else value


def yes_or_no(value: Any, what: str) -> Any:
    """yes/no words as a bool; any other word is refused, naming what was asked."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in YES | NO:
            return word in YES
        raise ValueError(f"{what} must be yes or no, not {value!r}")
    return value


def not_in_future(value: date) -> date:
    if value > datetime.now(UTC).date():
        raise ValueError(f"measured on {value} is in the future")
    return value


class Offering(BaseModel):
    """An AWS instance type (provider None) with region and price kind, or a provider's listing and price kind.
    A reserved or Savings Plan kind (reserved_1y, compute_savings_plan_3y) is sold under terms: its purchase option
    and, for a reserved instance, its offering class, without which one kind is several prices."""

    model_config = ConfigDict(frozen=True, str_strip_whitespace=True)

    provider: str | None = None
    offering: str = Field(min_length=1)
    region: str | None = None
    price_kind: str = Field(min_length=1)
    purchase_option: str | None = None  # No Upfront, Partial Upfront, All Upfront (as the price list prints it)
    offering_class: str | None = None  # standard or convertible (reserved instances)

    _blanks = field_validator("provider", "region", "purchase_option", "offering_class", mode="before")(blank_to_none)

    @property
    def source(self) -> str:
        return "aws_instance" if self.provider is None else "gpu_listing"

    def describe(self) -> str:
        where = f"{self.provider} listing" if self.provider else "AWS instance"
        region = f", region {self.region}" if self.region else ""
        terms = "".join(f", {term}" for term in (self.purchase_option, self.offering_class) if term)
        return f"{where} {self.offering!r} ({self.price_kind}{terms}{region})"


class PilotResult(Offering):
    workload: str = Field(min_length=1)
    work_unit: WorkUnit
    units_per_hour: Decimal = Field(gt=0, max_digits=24, decimal_places=3, allow_inf_nan=False)
    quality_passed: bool
    measured_on: date
    note: str | None = None
    latency_target_ms: Decimal | None = Field(default=None, gt=0, max_digits=12, decimal_places=3)
    p95_latency_ms: Decimal | None = Field(default=None, gt=0, max_digits=12, decimal_places=3)  # at that target
    input_units: int | None = Field(default=None, gt=0)  # per request, in work units (e.g. prompt tokens)
    output_units: int | None = Field(default=None, gt=0)  # per request (e.g. generated tokens)
    concurrency: int | None = Field(default=None, ge=1, le=1_000_000)  # requests in flight
    billed_hours: Decimal | None = Field(default=None, gt=0, max_digits=18, decimal_places=6)  # over the window
    busy_hours: Decimal | None = Field(default=None, ge=0, max_digits=18, decimal_places=6)
    accepted_outputs: int | None = Field(default=None, ge=0)  # outputs that passed the quality bar
    framework_path: str | None = None  # a neuron_support package or framework (TorchNeuron Native), or CUDA

    _note_blank = field_validator("note", "framework_path", mode="before")(blank_to_none)

    @model_validator(mode="after")
    def _conditions_hold_together(self) -> PilotResult:
        if (self.latency_target_ms is None) != (self.p95_latency_ms is None):
            raise ValueError("give latency_target_ms and p95_latency_ms together: a p95 means something at a target")
        if (self.billed_hours is None) != (self.accepted_outputs is None):
            raise ValueError("give billed_hours and accepted_outputs together: cost per accepted output needs both")
        if self.busy_hours is not None and (self.billed_hours is None or self.busy_hours > self.billed_hours):
            raise ValueError("busy_hours needs billed_hours, and cannot exceed them (busy time is billed time)")
        return self

    @property
    def misses_latency_target(self) -> bool:
        return self.p95_latency_ms is not None and self.p95_latency_ms > (self.latency_target_ms or 0)

    @field_validator(*EXACT_NUMBERS, mode="before")
    @classmethod
    def _exact_number(cls, value: Any) -> Any:
        return exact_number(value)

    _yes_no = field_validator("quality_passed", mode="before")(lambda v: yes_or_no(v, "quality target passed"))
    _not_future = field_validator("measured_on")(not_in_future)


class MigrationPlan(BaseModel):
    model_config = ConfigDict(frozen=True, str_strip_whitespace=True)

    workload: str = Field(min_length=1)
    baseline: Offering
    one_time_cost_usd: Decimal = Field(ge=0, max_digits=18, decimal_places=2, allow_inf_nan=False)
    monthly_maintenance_usd: Decimal = Field(ge=0, max_digits=18, decimal_places=2, allow_inf_nan=False)
    monthly_volume: Decimal = Field(gt=0, max_digits=24, decimal_places=0, allow_inf_nan=False)
    lifetime_months: int = Field(gt=0, le=600)
    note: str | None = None


def field_problems(where: str, exc: ValidationError) -> list[str]:
    """pydantic's errors as `where, field: message` lines a user can act on."""
    problems = []
    for error in exc.errors(include_url=False):
        field = ".".join(str(part) for part in error["loc"]) or "row"
        shown = error.get("input")
        problem = "missing" if error["type"] == "missing" else error["msg"]
        given = f" (given {shown!r})" if error["type"] != "missing" and isinstance(shown, (str, int)) else ""
        problems.append(f"{where}, {field}: {problem}{given}")
    return problems


def model_from_fields(model: type[M], where: str, fields: dict[str, Any], origin: str | None = None) -> M:
    """One record from named fields (a CSV row, or a command's options); blank fields count as missing."""
    cleaned = {key: value for key, value in fields.items() if blank_to_none(value) is not None}
    try:
        return model.model_validate(cleaned)
    except ValidationError as exc:
        raise PilotInputError(origin or where, field_problems(where, exc)) from None


def pilot_from_fields(where: str, fields: dict[str, Any], origin: str | None = None) -> PilotResult:
    return model_from_fields(PilotResult, where, fields, origin)


def read_csv_records(
    model: type[M], origin: str, text: str, required: set[str], known: tuple[str, ...]
) -> tuple[list[M], list[str]]:
    """Every data row as a `model`, and the problems of those that are not (each naming its row and field). A
    missing or unknown column refuses the file at once."""
    reader = csv.DictReader(io.StringIO(text))
    header = [name.strip() for name in reader.fieldnames or []]
    missing = sorted(required - set(header))
    if missing:
        raise PilotInputError(origin, [f"header: required column(s) {', '.join(missing)} missing"])
    unknown = sorted(set(header) - set(known))
    if unknown:
        raise PilotInputError(origin, [f"header: unknown column(s) {', '.join(unknown)}; known: {list(known)}"])
    records, problems = [], []
    for number, row in enumerate(reader, start=1):
        if None in row:  # csv puts cells beyond the header under None: an unquoted "1,000" would shift silently
            problems.append(f"row {number}: {len(row[None])} more cell(s) than the header (quote numbers with commas)")
            continue
        fields = {(key or "").strip(): value for key, value in row.items()}
        try:
            records.append(model_from_fields(model, f"row {number}", fields))
        except PilotInputError as exc:
            problems += exc.problems
    return records, problems


def csv_text(origin: str, content: bytes) -> str:
    """A CSV file's bytes as text (UTF-8, a BOM dropped); bytes that are not UTF-8 are named by row and line."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = content.count(b"\n", 0, exc.start) + 1
        column = exc.start - (content.rfind(b"\n", 0, exc.start) + 1) + 1
        where = "the header" if line == 1 else f"row {line - 1} (line {line})"
        bad = content[exc.start : exc.end].hex(" ")
        raise PilotInputError(
            origin, [f"{where}, byte {column}: 0x{bad} is not UTF-8; save the file as UTF-8 (CSV UTF-8)"]
        ) from None


def repeated_rows(keys: list[str], what: str) -> list[str]:
    """`row N: <what> <key> already given in row M`, for each data row whose key an earlier row gave."""
    first: dict[str, int] = {}
    problems = []
    for number, key in enumerate(keys, start=1):
        if key in first:
            problems.append(f"row {number}: {what} {key} already given in row {first[key]}")
        first.setdefault(key, number)
    return problems


def describe_key(record: PilotResult) -> str:
    return f"{record.workload!r} on {record.describe()}"


def pilot_key(record: PilotResult) -> str:
    """What makes a pilot one measurement: the workload on one offering, priced one way, in one region."""
    return "|".join(
        str(part)
        for part in (
            record.workload,
            record.source,
            record.provider,
            record.offering,
            record.region,
            record.price_kind,
            record.purchase_option,
            record.offering_class,
        )
    )


def read_pilot_csv(origin: str, text: str) -> list[PilotResult]:
    """Every row as a PilotResult; any bad row (or a missing column) refuses the whole file, all problems named."""
    records, problems = read_csv_records(PilotResult, origin, text, REQUIRED_COLUMNS, PILOT_COLUMNS)
    # Only in a file whose every row read: then the n-th record is data row n.
    problems += [] if problems else repeated_rows([describe_key(r) for r in records], "the pilot")
    if problems:
        raise PilotInputError(origin, problems)
    if not records:
        raise PilotInputError(origin, ["no data rows under the header"])
    return records
