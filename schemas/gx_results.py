"""Great Expectations results kept for the life of the process, keyed by exactly what decides them.

A GE run is a function of the suite (each expectation's type and arguments), the result format and the frame: the
same three give the same results. Replaying fetches whose bodies did not change (a reparse, a backfill over quiet
days, a Dagster process refreshing an unchanged page again) hands GE the same frame and suite again; those runs
return the first run's results instead of costing a whole GE run each (about 0.1 s however small the frame).

The key is the pickled suite and frame, hashed: pickle writes every column's name and dtype and every value with
its type and exact text (Decimal('1.34') and Decimal('1.340') differ), so different inputs never share a key.
Frames of more than MAX_ROWS rows are not kept: their GE run costs far more than the key, and they rarely repeat.
`bypassed()` turns the memo off, for benches that time GE itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import pandas as pd

MAX_ROWS = 5_000
MAX_ENTRIES = 512  # the oldest result is dropped beyond this


class _Memo:
    """The process's kept results, newest last, and whether validations use them."""

    lock = threading.Lock()
    results: ClassVar[OrderedDict[bytes, list[Any]]] = OrderedDict()
    on = True


def key_of(name: str, expectations: list[Any], frame: pd.DataFrame, result_format: str) -> bytes | None:
    """The run's key, or None when it is not kept (the memo bypassed, a large frame, or something unpicklable)."""
    if not _Memo.on or len(frame) > MAX_ROWS:
        return None
    try:
        pickled = pickle.dumps((name, result_format, expectations, frame), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    return hashlib.sha256(pickled).digest()


def found(key: bytes | None) -> list[Any] | None:
    """The results kept under `key` (the same list the first run returned; callers only read it)."""
    if key is None:
        return None
    with _Memo.lock:
        results = _Memo.results.get(key)
        if results is not None:
            _Memo.results.move_to_end(key)
        return results


def raised(result: Any) -> bool:
    """Whether GE reports that the expectation itself raised (not that the data failed it)."""
    info = result.exception_info or {}
    if isinstance(info, dict) and "raised_exception" in info:
        return bool(info["raised_exception"])
    return bool(info)  # a failed metric, keyed by metric id


def keep(key: bytes | None, results: list[Any]) -> None:
    """Keep a run's results under `key`, unless an expectation raised: that may not happen again."""
    if key is None or any(raised(result) for result in results):
        return
    with _Memo.lock:
        _Memo.results[key] = results
        while len(_Memo.results) > MAX_ENTRIES:
            _Memo.results.popitem(last=False)


def forget() -> None:
    """Drop every kept result."""
    with _Memo.lock:
        _Memo.results.clear()


@contextmanager
def _switched(on: bool) -> Iterator[None]:
    before, _Memo.on = _Memo.on, on
    try:
        yield
    finally:
        _Memo.on = before


def bypassed() -> contextlib.AbstractContextManager[None]:
    """Within (whatever the thread): every validation runs GE, and nothing is kept."""
    return _switched(False)


def kept() -> contextlib.AbstractContextManager[None]:
    """Within: results are kept and reused, even inside bypassed() (a bench that times the memo itself)."""
    return _switched(True)
