"""Records as Great Expectations sees them: a DataFrame whose numbers are exact Decimal objects, money in
micro-units, and bounds that a float holds exactly (why: schemas/gx_runner.py's docstring)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

import pandas as pd
from pydantic import BaseModel

MICRO_PLACES = 6  # money reaches GE in micro-units (millionths of a dollar, of a euro, ...)
_FLOAT_EXACT_INTS = 2**53  # every int up to this magnitude is exactly a float


def record_row(record: BaseModel) -> dict[str, Any]:
    try:
        return record.model_dump(warnings=False)
    except (ArithmeticError, TypeError, ValueError):
        # Only a model_construct()ed record gets here (e.g. accelerator_count 0 breaks the per-accelerator
        # division). Keep the row, with the failing computed field as None, so the suite reports it.
        row = {name: getattr(record, name, None) for name in type(record).model_fields}
        for name in type(record).model_computed_fields:
            try:
                row[name] = getattr(record, name)
            except (ArithmeticError, TypeError, ValueError, AttributeError):
                row[name] = None
        return row


def exact_number(value: Any) -> Decimal | None:
    """The value as a finite Decimal (exactly, even from a float), or None when it is no number at all."""
    if isinstance(value, bool) or not isinstance(value, (Decimal, int, float, str)):
        return None  # shows up as missing, which the not-null checks report
    try:
        number = Decimal(value)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def shifted(number: Decimal, places: int) -> Decimal:
    """number * 10**places, exactly: only the exponent moves, so no context precision can round it."""
    sign, digits, exponent = number.as_tuple()
    if not isinstance(exponent, int):  # NaN or infinity: nothing to shift
        return number
    return Decimal((sign, digits, exponent + places))


def micro_units(amount: Decimal | int) -> int:
    """A money bound in micro-units, as an int that GE's float-typed bound holds exactly."""
    scaled = shifted(Decimal(amount), MICRO_PLACES)
    if scaled != scaled.to_integral_value() or abs(scaled) > _FLOAT_EXACT_INTS:
        raise ValueError(f"money bound {amount} is not a whole number of micro-units that a float holds exactly")
    return int(scaled)


def _decimal_column(rows: list[dict[str, Any]], column: str, places: int) -> list[Decimal | None]:
    numbers = (exact_number(row.get(column)) for row in rows)
    return [None if number is None else shifted(number, places) for number in numbers]


def frame(
    rows: list[dict[str, Any]], columns: list[str], *, numbers: Sequence[str] = (), money: Sequence[str] = ()
) -> pd.DataFrame:
    """The rows as GE sees them: `numbers` and `money` columns as Decimal objects, money in micro-units."""
    data = pd.DataFrame.from_records(rows, columns=columns)  # zero rows still gives every column
    for column, places in [*((c, 0) for c in numbers), *((c, MICRO_PLACES) for c in money)]:
        # Read from the rows, not the frame: pandas would already have turned ints next to a None into floats.
        data[column] = pd.Series(_decimal_column(rows, column, places), index=data.index, dtype=object)
    return data


def float_columns(data: pd.DataFrame) -> list[str]:
    return [str(column) for column in data.columns if pd.api.types.is_float_dtype(data[column])]
