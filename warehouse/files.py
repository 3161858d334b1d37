"""Where the warehouse file lives by default, and what can be wrong with it: light enough (no DuckDB import) for
the CLI to name its defaults and its errors before any command runs."""

from __future__ import annotations

from pathlib import Path

# What a run makes (the warehouse file and its snapshot, the archive of fetched bodies, refresh logs, the dashboard,
# exports, Dagster's home for `make dagster`) goes in one folder, which git ignores.
RUNTIME_DIR = Path(__file__).resolve().parent.parent / "var"
# Where earlier releases kept the warehouse file (and everything beside it).
EARLIER_DEFAULT_DB_PATH = Path(__file__).resolve().parent / "prices.duckdb"


def default_db_path(runtime_dir: Path = RUNTIME_DIR, earlier: Path = EARLIER_DEFAULT_DB_PATH) -> Path:
    """`var/prices.duckdb`, unless only a warehouse at the earlier default exists: that one (and its archive, logs and
    dashboard beside it) stays in use, so a checkout keeps its history until its owner moves the files."""
    default = runtime_dir / "prices.duckdb"
    return earlier if earlier.exists() and not default.exists() else default


DEFAULT_DB_PATH = default_db_path()


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


class ObjectStoreMisconfigured(WarehouseUnreachable):
    """A lake's data, or an export, is on object storage (`s3://`), but the environment does not say how to reach it
    (warehouse/object_store.py names the variable, never a value)."""


class LakeCatalogMissing(WarehouseUnreachable):
    """The server answers but has no database of the conninfo's dbname: DuckLake creates its tables, not the
    database, so a refresh cannot create it either."""


class DamagedDuckDBFile(NotADuckDBFile):
    """A DuckDB file cut short or damaged, or whose write-ahead log (NAME.wal) DuckDB cannot replay."""
