"""What a new batch is checked against: the FX rates and the source's current version in the warehouse.

Read through a short-lived connection of its own (refresh) or through the caller's open transaction
(reparse, which must see the history it is rebuilding).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from pipelines.drift import Baseline
from pipelines.gpu.normalise import FxTable
from warehouse.db import connect
from warehouse.gpu_landing import load_fx_rates
from warehouse.queries import CURRENT_PRICES, LAST_SHAPE


class WarehouseState:
    def __init__(self, db_path: Path | str | None = None, con: duckdb.DuckDBPyConnection | None = None):
        self._db_path = db_path
        self._con = con

    @contextmanager
    def _connection(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if self._con is not None:
            yield self._con
        else:
            with connect(self._db_path) as con:
                yield con

    def fx(self) -> FxTable:
        with self._connection() as con:
            return FxTable.of(load_fx_rates(con))

    def baseline(self, kind: str, source_id: str) -> Baseline | None:
        if kind not in CURRENT_PRICES:
            return None
        params = {"source_id": source_id}
        with self._connection() as con:
            rows = con.execute(CURRENT_PRICES[kind], params).fetchall()
            shape = con.execute(LAST_SHAPE, params).fetchall()
        return Baseline(prices={(a, b, c): price for a, b, c, price in rows}, shape=shape[0][0] if shape else None)
