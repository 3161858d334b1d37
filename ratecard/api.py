"""The Python API's functions; `ratecard` (the package) names them, importing this module on first use."""

from __future__ import annotations

import importlib
import os
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import pipelines.kinds  # noqa: F401 - declares every kind's tables, as the CLI's import of pipelines does
from pipelines.offers.availability import where_in_snapshot
from pipelines.offers.names import UnknownName
from pipelines.offers.search import OfferSearch, find_in_snapshot
from pipelines.offers.units import Per
from warehouse.files import DEFAULT_DB_PATH
from warehouse.target import WAREHOUSE_ENV

__all__ = ["UnknownName", "query", "where"]

Frame = Literal["arrow", "pandas", "polars"]


def query(
    gpu: str | None = None,
    *,
    accelerator: str | None = None,
    count: int | None = None,
    total: int | None = None,
    memory_gib: Decimal | int | str | None = None,
    region: str = "any",
    kind: str = "on-demand",
    provider: str | None = None,
    max_price: Decimal | int | str | None = None,
    in_stock: bool = False,
    per: str = "accel-hour",
    db: Path | str | None = None,
    as_: Frame = "arrow",
) -> Any:
    """The offers `ratecard find` lists for the same filters, with its defaults (on-demand, any region, per
    accelerator-hour), as a pyarrow Table (money as decimal128), or a pandas or polars frame (`as_`; polars only
    when it is installed). `gpu` and `accelerator` are one filter. The warehouse is `db`, else
    `$RATECARD_WAREHOUSE`, else ratecard's default. An unknown name raises UnknownName (a ValueError)."""
    if gpu is not None and accelerator is not None and gpu != accelerator:
        raise ValueError("gpu and accelerator name one filter: give one of them")
    search = OfferSearch(
        accelerator=gpu if gpu is not None else accelerator,
        count=count,
        total=total,
        memory_gib=None if memory_gib is None else Decimal(str(memory_gib)),
        region=region,
        kind=kind,
        provider=provider,
        max_price=None if max_price is None else Decimal(str(max_price)),
        in_stock=in_stock,
        per=Per(per),
    )
    return framed(find_in_snapshot(warehouse(db), search), as_)


def where(accelerator: str, *, include_gone: bool = False, db: Path | str | None = None, as_: Frame = "arrow") -> Any:
    """The rows `ratecard where` shows: per price kind family, provider and region listing the accelerator now
    (also those that no longer do, with `include_gone`), its cheapest current USD per accelerator-hour (decimal128)
    and when each was first and last seen, as a pyarrow Table or a pandas or polars frame (`as_`). The warehouse
    is found as `query` finds it. An unknown name raises UnknownName (a ValueError)."""
    return framed(where_in_snapshot(warehouse(db), accelerator, include_gone=include_gone), as_)


def warehouse(db: Path | str | None) -> Path | str:
    return db if db is not None else os.environ.get(WAREHOUSE_ENV, DEFAULT_DB_PATH)


def framed(table: Any, as_: Frame) -> Any:
    if as_ == "arrow":
        return table
    if as_ == "pandas":
        return table.to_pandas()
    if as_ == "polars":
        # Not a dependency of ratecard: installed by whoever asks for polars frames (an ImportError names it).
        return importlib.import_module("polars").from_arrow(table)
    raise ValueError(f"as_={as_!r}: use 'arrow', 'pandas' or 'polars'")
