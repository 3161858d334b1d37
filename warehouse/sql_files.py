"""The SQL a warehouse is made of: the house's own tables (fetch log, quarantine, comments), then each kind's.

A kind of data keeps its SQL in its own folder (`pipelines/<kind>/sql/`: `tables.sql`, `views.sql`, `comments.sql`,
each optional, and named companions such as `views_<name>.sql`) and declares it, with the upgrade its older rows
need, as a `SchemaPart`. The kind registry (`pipelines/kinds.py`) hands every part here once, when `pipelines` is
imported, so the warehouse applies every kind's SQL without importing a kind. A leaf (pathlib only): the schema, the
lake's CHECK enforcement and the tests read the same list without importing the connection code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Every part's tables first (a view may read any kind's tables), then the views in the parts' order (a view may
# read an earlier part's views), then the comments, since CREATE OR REPLACE VIEW drops a view's comments.
PHASES = ("tables", "views", "comments")


@dataclass(frozen=True)
class SchemaPart:
    name: str
    sql_dir: Path
    # Run with the connection and this part whenever the schema is applied, after every phase: the data a new
    # column needs in rows landed before it, and attribute hashes in the current definition. It should import its
    # landing late: only a schema change needs it, and `ratecard show` connects too.
    upgrade: Callable[[Any, SchemaPart], None] | None = None
    # Other files whose change means rows need the upgrade again (the AWS region reference): in the schema hash.
    hashed_files: tuple[Path, ...] = ()

    def file(self, phase: str) -> Path:
        return self.sql_dir / f"{phase}.sql"

    def files(self, phase: str) -> list[Path]:
        """The phase's main file, then its named companions (`views_<name>.sql`, by name): one view's SQL and its
        comments can keep a file of their own and still run in their phase."""
        main = self.file(phase)
        return [*([main] if main.exists() else []), *sorted(self.sql_dir.glob(f"{phase}_*.sql"))]


HOUSE = SchemaPart("house", Path(__file__).resolve().parent / "sql")


class SchemaUndeclared(RuntimeError):
    """A warehouse was opened before any kind declared its tables."""


_declared: list[SchemaPart] = []


def declare(parts: Iterable[SchemaPart]) -> None:
    """The kinds' parts, in the order their tables and views are made (the kind registry calls this)."""
    _declared[:] = parts


def schema_parts() -> tuple[SchemaPart, ...]:
    if not _declared:
        raise SchemaUndeclared(
            "no kind has declared its tables: import pipelines (pipelines/kinds.py declares them) before opening a "
            "warehouse"
        )
    return (HOUSE, *_declared)


def schema_files() -> list[Path]:
    """Every SQL file of the schema, in the order it runs."""
    parts = schema_parts()
    return [path for phase in PHASES for part in parts for path in part.files(phase)]


def sql(path: Path) -> str:
    return path.read_text(encoding="utf-8")
