"""An empty lake with today's schema, built once per schema on this machine, that each lake test clones.

The template is a PostgreSQL database named after the schema's hash and the DuckDB version, with its data folder
(the catalog comments' Parquet file) under the system's temp folder. A marker file beside the folder says the
build finished: a database without its marker is a build that was stopped, and is built again. Workers of one run
(and runs of two clones) build it under one PostgreSQL advisory lock; templates of other schemas left for a day
are dropped by the next build.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import duckdb
import psycopg2
import pytest

from tests.support.backends import lake_location
from tests.support.landed import copy_lake
from tests.support.pgserver import connect as pg_connect
from warehouse.target import LAKE_DATA_ENV

TEMPLATES = Path(tempfile.gettempdir()) / "ratecard-empty-lakes"
PREFIX = "ratecard_lake_template_"
BUILD_LOCK = 0x7261_7465  # pg_advisory_lock key: "rate"
STALE_SECONDS = 24 * 3600


def template_name() -> str:
    from warehouse.schema import schema_sha256

    tag = hashlib.sha256(f"{schema_sha256()} duckdb {duckdb.__version__}".encode()).hexdigest()[:16]
    return f"{PREFIX}{tag}"


def _marker(name: str) -> Path:
    return TEMPLATES / f"{name}.ready"


def _build(cur: psycopg2.extensions.cursor, name: str) -> None:
    from warehouse.db import connect

    cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    shutil.rmtree(TEMPLATES / name, ignore_errors=True)
    cur.execute(f'CREATE DATABASE "{name}"')
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(LAKE_DATA_ENV, str(TEMPLATES / name))
        with connect(lake_location(name)):
            pass  # the first writable open applies the schema
    _marker(name).touch()


def _drop_stale(cur: psycopg2.extensions.cursor, keep: str) -> None:
    cur.execute("SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s", (f"{PREFIX}%", keep))
    for (name,) in cur.fetchall():
        marker = _marker(name)
        if marker.exists() and time.time() - marker.stat().st_mtime < STALE_SECONDS:
            continue
        try:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}"')
        except psycopg2.errors.ObjectInUse:
            continue  # being cloned by a run that has just begun: the next build drops it
        marker.unlink(missing_ok=True)
        shutil.rmtree(TEMPLATES / name, ignore_errors=True)


@cache  # checked once per process
def empty_lake_template() -> str:
    """The template's database name, built first if this machine has none for today's schema."""
    name = template_name()
    TEMPLATES.mkdir(parents=True, exist_ok=True)
    admin = pg_connect()
    try:
        with admin.cursor() as cur:
            cur.execute("SELECT pg_advisory_lock(%s)", (BUILD_LOCK,))
            try:
                cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
                if cur.fetchone() is None or not _marker(name).exists():
                    _build(cur, name)
                    _drop_stale(cur, name)
            finally:
                cur.execute("SELECT pg_advisory_unlock(%s)", (BUILD_LOCK,))
    finally:
        admin.close()
    return name


@contextmanager
def empty_lake_clone(into: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A catalog database cloned from the empty template, its data folder at `into`; yields the lake's location."""
    name = empty_lake_template()
    monkeypatch.setenv(LAKE_DATA_ENV, str(TEMPLATES / name))
    with copy_lake(lake_location(name), into, monkeypatch, prefix="ratecard_lake") as location:
        yield location
