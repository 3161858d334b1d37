"""Parameters bound to DuckDB land at their value, whatever the exponent a Decimal carries.

DuckDB 1.5.5's Python binding reads a Decimal with a positive exponent by its digits alone: Decimal('1E+6') binds
as 1 and Decimal('2.5E+6') as 25 (`SELECT ?::DECIMAL(24,3)`), with no error. Such values come from input written
in exponent form (a CSV's 1e6, `--units-per-hour 1e6`) and from Decimal.normalize(). Every statement that binds
parameters goes through `execute`, which writes each such Decimal out in fixed point first; Arrow tables
(snapshot landings) carry Decimals as scaled integers and need nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

import duckdb

Params = Mapping[str, object] | Sequence[object]


def fixed_point(value: object) -> object:
    """A finite Decimal with a positive exponent as the same value in fixed point (1E+6 -> 1000000); else as is."""
    if isinstance(value, Decimal) and value.is_finite() and value.as_tuple().exponent > 0:  # type: ignore[operator]
        return Decimal(format(value, "f"))
    if isinstance(value, list | tuple):
        return type(value)(fixed_point(item) for item in value)
    return value


def bound(params: Params | None) -> Params:
    """The parameters with every Decimal (also inside a list) in fixed point."""
    if params is None:
        return {}
    if isinstance(params, Mapping):
        return {name: fixed_point(value) for name, value in params.items()}
    return [fixed_point(value) for value in params]


def execute(con: duckdb.DuckDBPyConnection, sql: str, params: Params | None = None) -> duckdb.DuckDBPyConnection:
    """`con.execute(sql, params)` with the parameters bound at their value (see the module docstring)."""
    return con.execute(sql, bound(params))
