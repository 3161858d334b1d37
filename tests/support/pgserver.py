"""The project's PostgreSQL server (127.0.0.1:5432, trust auth) for tests: a fresh database per test, dropped after.

A missing server is a failure, never a skip: every machine of the project runs one, so its absence is a
broken machine, and the message says how to start it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg2
import pytest

HOST = "127.0.0.1"
PORT = 5432
USER = "postgres"
START_HINT = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"


def connect(dbname: str = "postgres"):  # type: ignore[no-untyped-def]
    """An autocommit connection, or a test failure naming the server and how to start it."""
    try:
        con = psycopg2.connect(host=HOST, port=PORT, user=USER, dbname=dbname, connect_timeout=5)
    except psycopg2.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL is not reachable at {HOST}:{PORT} as {USER!r} ({str(exc).strip()}).\n"
            f"Start the machine's server with:  {START_HINT}",
            pytrace=False,
        )
    con.autocommit = True
    return con


@contextmanager
def fresh_database(prefix: str) -> Iterator[str]:
    """CREATE DATABASE <prefix>_<random>; yields its name; drops it (closing leftover sessions) afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = connect()
    try:
        with admin.cursor() as cur:
            cur.execute(f'CREATE DATABASE "{name}"')
        yield name
    finally:
        with admin.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def table_counts(dbname: str, tables: list[str]) -> dict[str, int]:
    """Row count of each table in `dbname`."""
    con = connect(dbname)
    try:
        with con.cursor() as cur:
            counts = {}
            for table in tables:
                cur.execute(f"SELECT count(*) FROM {table}")
                counts[table] = cur.fetchone()[0]
            return counts
    finally:
        con.close()
