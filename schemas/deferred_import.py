"""A module another library imports but may never use, loaded on its first use instead.

Great Expectations imports `scipy.stats` (about 0.8 s of the 2.7 s GE costs to import) for three expectations
and metrics ratecard never runs: a KL divergence and two KS tests, which touch `stats.` only inside the functions
that compute them; the KL divergence also imports `altair` (about 0.3 s) for its chart, used only when rendering.
A placeholder stands in for the module during GE's import and loads the real one on first
attribute access; it leaves `sys.modules` when the import is over, so any later `import scipy.stats` gets the
real module.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
import types
from collections.abc import Iterator
from typing import Any


class DeferredModule(types.ModuleType):
    """Stands in for module `name`; the first attribute read imports it and forwards every read after."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__spec__ = None  # the import system reads it: with None it treats the placeholder as loaded
        self._lock = threading.Lock()
        self._module: types.ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:  # only called for what the placeholder itself lacks
        with self._lock:
            if self._module is None:
                if sys.modules.get(self.__name__) is self:
                    del sys.modules[self.__name__]
                self._module = importlib.import_module(self.__name__)
        return getattr(self._module, attribute)


@contextlib.contextmanager
def deferred(name: str) -> Iterator[None]:
    """While the block imports other modules, `import name` gives them a DeferredModule."""
    if name in sys.modules:
        yield
        return
    placeholder = DeferredModule(name)
    sys.modules[name] = placeholder
    try:
        yield
    finally:
        if sys.modules.get(name) is placeholder:
            del sys.modules[name]
