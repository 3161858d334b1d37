"""Where the warehouse file lives by default, and what can be wrong with it: light enough (no DuckDB import) for
the CLI to name its defaults and its errors before any command runs."""

from __future__ import annotations

from pathlib import Path

DEFAULT_DB_PATH = Path(__file__).resolve().parent / "prices.duckdb"


class WarehouseError(RuntimeError):
    """The warehouse file cannot be used, for a reason its user can fix (the CLI says how, without a traceback)."""

    def __init__(self, path: Path | str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


class NotADuckDBFile(WarehouseError):
    """Another kind of file at the path, or a DuckDB file whose header is damaged."""


class NewerDuckDBFile(WarehouseError):
    """Written by a newer DuckDB: its storage version is one this DuckDB cannot read."""


class WarehouseBusy(WarehouseError):
    """Another process holds the file's lock (a SQL client on the working file instead of the snapshot?)."""


class WarehouseUnwritable(WarehouseError):
    """No database file can be written (or read) at the path: it is a directory, or its directory is not writable."""


class WarehouseMissing(WarehouseError):
    """Opened read-only before any refresh created it."""


class WarehouseUnreachable(WarehouseError):
    """A DuckLake's catalog database cannot be reached (server down, wrong host or credentials)."""


class LakeCatalogMissing(WarehouseUnreachable):
    """The server answers but has no database of the conninfo's dbname: DuckLake creates its tables, not the
    database, so a refresh cannot create it either."""


class DamagedDuckDBFile(NotADuckDBFile):
    """A DuckDB file cut short or damaged, or whose write-ahead log (NAME.wal) DuckDB cannot replay."""
