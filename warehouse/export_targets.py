"""Where an export writes: a local folder, or a prefix on S3-compatible storage (`s3://bucket/prefix/`).

Both are written by DuckDB's COPY; what differs is how a file is named, how an earlier export's partition folder is
cleared, how the partitions written are listed and how manifest.json is written. A bucket has no folders to clear
and no rename: an export there writes in place, manifest.json last, so a reader that starts from the manifest only
ever sees files that are complete.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import duckdb

from warehouse.object_store import is_object_store
from warehouse.quoting import literal

MANIFEST = "manifest.json"
# manifest.json through COPY: one CSV value with no quoting and a separator JSON never holds (json.dumps escapes
# every control character), so the text lands byte for byte; the writer adds the final newline.
TEXT_OPTIONS = "FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\x1f'"


class ExportTarget(Protocol):
    def path(self, name: str) -> str: ...
    def clear(self, path: str) -> None: ...
    def partitions(self, con: duckdb.DuckDBPyConnection, path: str) -> list[str]: ...
    def write_text(self, con: duckdb.DuckDBPyConnection, name: str, text: str) -> None: ...
    def relative(self, path: str) -> str: ...


@dataclass(frozen=True)
class LocalFolder:
    folder: Path

    def path(self, name: str) -> str:
        return str(self.folder / name)

    def clear(self, path: str) -> None:
        if Path(path).is_dir():
            shutil.rmtree(path)  # a partition that no longer exists must not survive from an earlier export

    def partitions(self, con: duckdb.DuckDBPyConnection, path: str) -> list[str]:
        return sorted(p.name for p in Path(path).iterdir() if p.is_dir())

    def write_text(self, con: duckdb.DuckDBPyConnection, name: str, text: str) -> None:
        (self.folder / name).write_text(text, encoding="utf-8")

    def relative(self, path: str) -> str:
        return Path(path).relative_to(self.folder).as_posix()


@dataclass(frozen=True)
class BucketPrefix:
    url: str  # s3://bucket/prefix, no trailing slash

    def path(self, name: str) -> str:
        return f"{self.url}/{name}"

    def clear(self, path: str) -> None:
        """Nothing to clear: the partitioned COPY overwrites the files it writes (OVERWRITE_OR_IGNORE)."""

    def partitions(self, con: duckdb.DuckDBPyConnection, path: str) -> list[str]:
        files = con.execute(f"SELECT file FROM glob({literal(path + '/*/*')})").fetchall()
        return sorted({file.removeprefix(path + "/").split("/", 1)[0] for (file,) in files})

    def write_text(self, con: duckdb.DuckDBPyConnection, name: str, text: str) -> None:
        con.execute(
            f"COPY (SELECT $text AS text) TO {literal(self.path(name))} ({TEXT_OPTIONS})",
            {"text": text.removesuffix("\n")},
        )

    def relative(self, path: str) -> str:
        return path.removeprefix(self.url + "/")


def target_of(out: Path | str) -> ExportTarget:
    if isinstance(out, str) and is_object_store(out):
        return BucketPrefix(out.rstrip("/"))
    return LocalFolder(Path(out))
