"""Landed warehouses that tests share: one is built once, and a test that writes gets its own copy of it.

A copy is what the original holds, on the same backend: for a DuckDB file, its folder (the file, its archive of
fetched bodies, its logs); for a DuckLake, a PostgreSQL database made from the catalog as a template, and a copy
of the data folder that the copied catalog is pointed at. Copying takes milliseconds where a refresh takes
seconds, so the suite lands each set of samples once.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.backends import lake_location
from tests.support.pgserver import connect as pg_connect
from warehouse.target import LAKE_DATA_ENV, is_lake, lake_conninfo, lake_data_path


def lake_dbname(location: str) -> str:
    fields = dict(part.split("=", 1) for part in lake_conninfo(location).split())
    return fields["dbname"]


def copy_file_warehouse(location: Path, into: Path) -> Path:
    """The file's whole folder (archive, logs, snapshot) copied to `into`; the copy's file path."""
    shutil.copytree(location.parent, into)
    return into / location.name


@contextmanager
def copy_lake(
    location: str, into: Path, monkeypatch: pytest.MonkeyPatch, *, prefix: str | None = None
) -> Iterator[str]:
    """A new catalog database (named `prefix`_<random>, by default after the lake's) cloned from the lake's, its
    data folder copied to `into` and named in the catalog; `RATECARD_LAKE_DATA_PATH` points at the copy while it is
    used. The database is dropped afterwards."""
    source_db, source_data = lake_dbname(location), lake_data_path()
    assert source_data, f"{LAKE_DATA_ENV} must name the lake's data folder to copy it"
    copy_db = f"{prefix or source_db.rsplit('_', 1)[0]}_{uuid.uuid4().hex[:12]}"
    admin = pg_connect()
    try:
        with admin.cursor() as cur:
            # A template may have no sessions: those of this process's cached lake attachment are ended here
            # (ratecard attaches afresh when it finds its sessions gone).
            cur.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (source_db,),
            )
            cur.execute(f'CREATE DATABASE "{copy_db}" TEMPLATE "{source_db}"')
        shutil.copytree(source_data, into)
        catalog = pg_connect(copy_db)
        try:
            with catalog.cursor() as cur:
                cur.execute("UPDATE ducklake_metadata SET value = %s WHERE key = 'data_path'", (f"{into}/",))
        finally:
            catalog.close()
        monkeypatch.setenv(LAKE_DATA_ENV, str(into))
        yield lake_location(copy_db)
    finally:
        with admin.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{copy_db}" WITH (FORCE)')
        admin.close()


@contextmanager
def copy_of(location: Path | str, into: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path | str]:
    """A private copy of a landed warehouse, on its backend, under the folder `into` (which must not exist)."""
    if is_lake(location):
        with copy_lake(str(location), into / "lake", monkeypatch) as copied:
            yield copied
    else:
        yield copy_file_warehouse(Path(location), into / "warehouse")
