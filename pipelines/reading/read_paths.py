"""The shape of a JSON or XML answer as an adapter sees it: the key paths it read and found.

A table adapter's shape is its headers; an API adapter's is the set of paths it looked up and found there
(`data.gpuTypes[].lowestPrice.stockStatus`, `Envelope/Cube/Cube@time`). Sorted, so key order does not count;
only paths the adapter reads, so a key it ignores appearing does not count; a read key gone or renamed does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pipelines.reading.tables import shape_fingerprint


class ReadPaths:
    """Collects the paths found while parsing one answer; `fingerprint` is the batch's `shape`."""

    def __init__(self) -> None:
        self._found: set[str] = set()

    def found(self, path: str) -> None:
        self._found.add(path)

    def found_keys(self, prefix: str, mapping: Mapping[str, object], keys: Iterable[str]) -> None:
        """Record `prefix + key` for each dotted key (`lowestPrice.stockStatus`) that `mapping` has, through
        nested objects; a key whose value is null is there all the same."""
        self._found.update(prefix + key for key in keys if _has(mapping, key.split(".")))

    @property
    def paths(self) -> list[str]:
        return sorted(self._found)

    @property
    def fingerprint(self) -> str:
        return shape_fingerprint(self.paths)


def _has(mapping: object, keys: list[str]) -> bool:
    """Whether the nested objects hold the keys in turn: a.b.c present in {"a": {"b": {"c": null}}}."""
    for key in keys:
        if not isinstance(mapping, Mapping) or key not in mapping:
            return False
        mapping = mapping[key]
    return True
