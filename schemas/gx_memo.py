"""One Great Expectations run computes each expectation's configuration, and each metric id, once.

GE 1.x rebuilds `Expectation.configuration` (a pydantic v1 `dict()`, a class-name regex and a new
ExpectationConfiguration) on every access, and one run of a 15-expectation suite reads it about 1,800 times: 40 %
of the run's time. Inside `memoised()` the property is computed once per expectation object and handed back after.
Safe because, while a run lasts, GE only reads the configuration, and an expectation's fields do not change: the
objects it reads are the ones it builds from the suite at the start of the run. The memo holds each object it
keys by `id()`, so no id is reused for another object while the run lasts.

Building a run's metric graph also makes tens of thousands of MetricConfigurations, each hashing its two kwargs
dicts (`IDDict.to_id`: a JSON conversion, a dump and an MD5) though most are the same few dicts again: a quarter
of the run. Inside `memoised()` an id is kept by the dict's content, frozen to a key that holds every value's type
and exact text, so equal keys mean equal dicts and the id is the one GE would compute; a dict holding anything
else (a DataFrame, a set) is hashed as GE does.

Both memos are dropped when the run ends; outside `memoised()` GE behaves as written. Runs are serialised by
gx_runner's lock.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any


class _State:
    """The memo of the run in progress (None: no run), and whether GE's property is wrapped yet."""

    memo: dict[int, tuple[Any, Any]] | None = None  # id(expectation) -> (expectation, its configuration)
    ids: dict[tuple[Any, ...], Any] | None = None  # (dict type, frozen content) -> its to_id()
    installed = False


class _Unfrozen(Exception):
    """A value the id memo does not key: the dict is hashed as GE does."""


_PLAIN = (str, int, float, bool, type(None), Decimal)


def _frozen(value: Any) -> Any:
    """A hashable key equal only for values of the same types and exact text, all the way down."""
    if isinstance(value, _PLAIN):
        return (type(value), str(value))
    if isinstance(value, list | tuple):
        return (type(value), tuple(_frozen(item) for item in value))
    if isinstance(value, dict) and all(type(key) is str for key in value):
        return (type(value), tuple(sorted((key, _frozen(item)) for key, item in value.items())))
    raise _Unfrozen


def install(expectation_class: Any, id_dict_class: Any) -> None:
    """Wrap `expectation_class.configuration` and `id_dict_class.to_id` once, so that `memoised()` can serve
    them from its memos."""
    if _State.installed:
        return
    computed = expectation_class.configuration.fget
    hashed = id_dict_class.to_id

    def configuration(self: Any) -> Any:
        memo = _State.memo
        if memo is None:
            return computed(self)
        entry = memo.get(id(self))
        if entry is None or entry[0] is not self:
            entry = memo[id(self)] = (self, computed(self))
        return entry[1]

    def to_id(self: Any, id_keys: Any = None, id_ignore_keys: Any = None) -> Any:
        ids = _State.ids
        if ids is None or id_keys is not None or id_ignore_keys is not None:
            return hashed(self, id_keys, id_ignore_keys)
        try:
            key = (type(self), _frozen(dict(self)))
        except _Unfrozen:
            return hashed(self)
        found = ids.get(key)
        if found is None:
            found = ids[key] = hashed(self)
        return found

    expectation_class.configuration = property(configuration, doc=expectation_class.configuration.__doc__)
    id_dict_class.to_id = to_id
    _State.installed = True


@contextmanager
def memoised() -> Iterator[None]:
    """Within: each expectation's configuration and each metric id are computed once (call it holding the runs'
    lock)."""
    _State.memo, _State.ids = {}, {}
    try:
        yield
    finally:
        _State.memo = _State.ids = None
