"""What a new batch is checked against: the source's current version in the warehouse, and what its kind reads of
what is landed (GPU prices: the FX rates; spot quotes: the price list's types), through the kind's own query.

Read through a short-lived connection of its own (refresh) or through the caller's open transaction
(reparse, which must see the history it is rebuilding).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from pipelines.kind import Kind, LandedRead, T
from pipelines.refresh.drift import Baseline
from warehouse.binding import execute
from warehouse.db import connect
from warehouse.queries import LAST_SHAPE, NEWEST_IS_CAPTURE

NO_FETCH_YET = 2**62  # a fetch id above every logged one: "compare with the newest"


class WarehouseState:
    """`before` (reparse): see only what was known before that fetch (its id and fetch time)."""

    def __init__(
        self,
        db_path: Path | str | None = None,
        con: duckdb.DuckDBPyConnection | None = None,
        before: tuple[int, datetime] | None = None,
    ):
        self._db_path = db_path
        self._con = con
        self._before = before

    @contextmanager
    def _connection(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if self._con is not None:
            yield self._con
            return
        if self._db_path is None:
            raise ValueError("WarehouseState needs a warehouse path or an open connection")
        with connect(self._db_path) as con:
            yield con

    def read(self, query: LandedRead[T]) -> T:
        """A kind's read of what is landed, as known before the replayed fetch (reparse) or now."""
        with self._connection() as con:
            return query(con, self._before[1] if self._before else None)

    def baseline(self, kind: Kind, source_id: str, scope: Mapping[str, Any] | None = None) -> Baseline:
        """Open prices and rows where the kind keeps versions (not FX: rates are facts by date); the last shape
        landed or confirmed, for every kind. `scope` narrows the open rows to what the batch replaces (a
        price-list region)."""
        params: dict[str, Any] = {"source_id": source_id}
        before = {**params, "before": self._before[0] if self._before else NO_FETCH_YET}
        with self._connection() as con:
            # fetchall, never fetchone: DuckDB 2.0 refuses further work (reparse lands on this connection) while
            # a result is left unread.
            last = execute(con, LAST_SHAPE, before).fetchall()
            shape = last[0][0] if last else None
            if kind.history.current_rows is None:
                return Baseline(prices={}, shape=shape)
            at = {"before_at": self._before[1] if self._before else datetime.max.replace(tzinfo=UTC)}
            ((captured,),) = execute(con, NEWEST_IS_CAPTURE, params | at).fetchall()
            if captured:  # as a first fetch: nothing of the page itself to compare with
                return Baseline(prices={}, shape=shape)
            params |= dict(scope or {})
            current_prices = kind.history.current_prices
            prices = execute(con, current_prices, params).fetchall() if current_prices else []
            ((rows,),) = execute(con, kind.history.current_rows, params).fetchall()
        return Baseline(prices={(a, b, c): price for a, b, c, price in prices}, shape=shape, rows=rows)
