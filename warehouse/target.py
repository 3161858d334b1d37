"""Which warehouse a command writes: a DuckDB file (the default) or a DuckLake whose catalog is in PostgreSQL.

One setting picks it: `RATECARD_WAREHOUSE` (or `--warehouse`/`--db`), either a file path or
`ducklake:postgres:<libpq conninfo>`, with the lake's Parquet files under `RATECARD_LAKE_DATA_PATH`. Light on
purpose (no DuckDB import), so the CLI can name its defaults before any command runs.
"""

from __future__ import annotations

import os
from pathlib import Path

from warehouse.files import DEFAULT_DB_PATH

WAREHOUSE_ENV = "RATECARD_WAREHOUSE"
LAKE_DATA_ENV = "RATECARD_LAKE_DATA_PATH"
LAKE_PREFIX = "ducklake:"
POSTGRES_CATALOG = "ducklake:postgres:"


def default_location() -> str:
    """`RATECARD_WAREHOUSE` if set, else the bundled file path."""
    return os.environ.get(WAREHOUSE_ENV) or str(DEFAULT_DB_PATH)


def is_lake(location: Path | str) -> bool:
    return str(location).startswith(LAKE_PREFIX)


def lake_conninfo(location: Path | str) -> str:
    """The libpq conninfo of a `ducklake:postgres:` location (the catalog database), e.g. `dbname=ratecard`."""
    text = str(location)
    if not text.startswith(POSTGRES_CATALOG):
        raise ValueError(f"{text}: only a DuckLake catalog in PostgreSQL is supported (ducklake:postgres:<conninfo>)")
    return text.removeprefix(POSTGRES_CATALOG).strip()


def lake_data_path() -> str | None:
    """Where the lake's Parquet files go: a directory, or an s3:// URL; None once the catalog remembers it."""
    return os.environ.get(LAKE_DATA_ENV) or None


def local_dir(location: Path | str) -> Path:
    """Where this machine keeps the archive of fetched bodies, refresh logs and the dashboard: beside the file,
    or for a lake in its data path when that is a local directory (else the runtime folder, var/)."""
    if not is_lake(location):
        return Path(location).parent
    data = lake_data_path()
    if data and "://" not in data:
        return Path(data)
    return DEFAULT_DB_PATH.parent


def exists(location: Path | str) -> bool:
    """Whether a refresh has created the file; a lake is taken to exist (opening it says if its catalog does not)."""
    return is_lake(location) or Path(location).exists()
