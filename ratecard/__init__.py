"""ratecard from Python: the same search as `ratecard find`, on the published snapshot (opened read-only).

import ratecard
offers = ratecard.query(gpu="H100", count=8)          # a pyarrow Table, cheapest first per GPU-hour
frame = ratecard.query(accelerator="trn2", kind="all", as_="pandas")
places = ratecard.where("trn2")                       # where it is listed now: providers, regions, kinds

The package itself imports nothing heavy: the `ratecard` command starts from it (ratecard.console) and must take
Ctrl-C from its first moment, so the API's module loads when one of its names is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ratecard.api import UnknownName, query, where

__all__ = ["UnknownName", "query", "where"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("ratecard.api"), name)
    raise AttributeError(f"module 'ratecard' has no attribute {name!r}")
