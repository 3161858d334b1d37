"""The warehouse as a DuckLake: its catalog in PostgreSQL, its data as Parquet files under a data path.

DuckLake lets many processes write at once (each commit is a PostgreSQL transaction on the catalog) and lets
readers attach read-only while refreshes run, seeing only committed snapshots. It keeps the tables, views,
macros and comments of the DuckDB file, but not constraints, sequences or comments on view columns; this module
translates the schema files for it (`lake_statements`) and hands out ids from PostgreSQL sequences instead.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import threading
import time
from pathlib import Path

import duckdb

from warehouse.files import LakeCatalogMissing, WarehouseError, WarehouseUnreachable
from warehouse.lake_checks import closing
from warehouse.object_store import is_object_store, reach
from warehouse.quoting import literal
from warehouse.target import lake_conninfo, lake_data_path
from warehouse.templates import cache_dir

LAKE = "lake"  # the catalog's name inside each connection; `USE lake` makes it the default
CATALOG_PG = "lake_catalog_pg"  # the same PostgreSQL database attached directly, for the id sequences
# fetch_log and quarantine ids: PostgreSQL sequences, so ids stay unique and rising across writer processes.
ID_SEQUENCES = {"next_fetch_id": "ratecard_fetch_id_seq", "next_quarantine_id": "ratecard_quarantine_id_seq"}
# PostgreSQL's CREATE SEQUENCE IF NOT EXISTS is not safe against itself: writers attaching a new lake at once fail
# with "Key (relname, relnamespace)=(..., 2200) already exists". One transaction holding an advisory lock (a key
# of ratecard's own) creates them, so a second writer waits, then finds them made.
ID_SEQUENCES_LOCK = 7236410021
CREATE_ID_SEQUENCES = (
    f"DO $$ BEGIN PERFORM pg_advisory_xact_lock({ID_SEQUENCES_LOCK}); "
    + "".join(f"CREATE SEQUENCE IF NOT EXISTS {sequence}; " for sequence in ID_SEQUENCES.values())
    + "END $$"
)


def extension_file(package: str, name: str) -> Path:
    """An extension shipped in a `duckdb-extension-*` wheel, for this DuckDB version (INSTALL cannot download)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"the {package} wheel is missing: reinstall from requirements.lock")
    return Path(spec.origin).parent / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"


def httpfs_extension() -> Path:
    """S3 and HTTP file access (a lake's data or an export on S3-compatible storage)."""
    return extension_file("duckdb_extension_httpfs", "httpfs")


def postgres_extension() -> Path:
    """The postgres extension under the file name DuckDB derives its entry point from (postgres_scanner_init):
    loaded as postgres.duckdb_extension, as the wheel names it, it fails to find that entry point."""
    shipped = extension_file("duckdb_extension_postgres", "postgres")
    target = cache_dir() / "duckdb-extensions" / f"v{duckdb.__version__}" / "postgres_scanner.duckdb_extension"
    if not target.exists() or target.stat().st_size != shipped.stat().st_size:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        shutil.copyfile(shipped, staging)
        os.replace(staging, target)  # atomic: another process loading it sees the old file or the new
    return target


def lake_error(location: str, exc: duckdb.Error) -> WarehouseError | None:
    """What a refused ATTACH means for the user; None for anything else."""
    message = str(exc)
    if "does not exist" in message and "database" in message:
        return LakeCatalogMissing(location, "its catalog database does not exist on the PostgreSQL server")
    if any(s in message for s in ("Connection refused", "could not connect", "could not translate host")):
        first = next((line for line in message.splitlines() if "connect" in line or "refused" in line), message)
        return WarehouseUnreachable(location, f"the catalog's PostgreSQL server cannot be reached ({first.strip()})")
    if "password authentication failed" in message or "no pg_hba.conf entry" in message:
        return WarehouseUnreachable(location, "PostgreSQL refused the catalog's credentials")
    return None


# One attached DuckDB per lake and mode for the life of the process; each connect() is a cursor of it. Attaching
# (extensions, catalog, PostgreSQL) costs ~0.4 s, a cursor ~30 ms, and a refresh opens dozens of connections.
_attached: dict[tuple[str, bool, str | None], duckdb.DuckDBPyConnection] = {}
_attaching = threading.Lock()


def open_lake(location: str, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A connection whose default catalog is the lake (a cursor of the process's attached instance)."""
    key = (location, read_only, lake_data_path())
    with _attaching:
        if key not in _attached:
            _attached[key] = attach_lake(location, read_only=read_only)
        parent = _attached[key]
    try:
        return pointed_at_lake(parent.cursor())
    except duckdb.Error:  # the server dropped the instance's sessions (restarted): attach afresh, once
        with _attaching:
            _attached.pop(key, None)
        return open_lake(location, read_only=read_only)


def pointed_at_lake(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """`USE` and the search path are per connection: the lake first, then the id macros of the instance."""
    con.execute(f"USE {LAKE}")
    con.execute(f"SET search_path = '{LAKE}.main,memory.main'")
    con.execute(f"SELECT 1 FROM {LAKE}.snapshots() LIMIT 1").fetchall()  # a live catalog session, or an error now
    return con


INIT_RACE = "Failed to initialize DuckLake"


def attach_retrying(con: duckdb.DuckDBPyConnection, statement: str, attempts: int = 6) -> None:
    """ATTACH; when two processes attach a new lake at once, both create its metadata tables and one fails:
    by the next try the winner has made them, and the loser attaches to what it made."""
    for attempt in range(attempts):
        try:
            con.execute(statement)
            return
        except duckdb.Error as exc:
            if INIT_RACE not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.2 * (attempt + 1))


def attach_lake(location: str, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the extensions loaded and the lake attached as `lake`."""
    con = duckdb.connect()
    try:
        con.execute(f"LOAD {literal(str(postgres_extension()))}")
        con.execute(f"LOAD {literal(str(extension_file('duckdb_extension_ducklake', 'ducklake')))}")
        options = ["READ_ONLY"] if read_only else []
        if (data := lake_data_path()) is not None:
            options.append(f"DATA_PATH {literal(data)}")
        if data is not None and is_object_store(data):  # on S3-compatible storage: httpfs, and its bucket's secret
            reach(con, data, httpfs_extension())
        suffix = f" ({', '.join(options)})" if options else ""
        attach_retrying(con, f"ATTACH {literal(location)} AS {LAKE}{suffix}")
        if not read_only:
            attach_id_sequences(con, location)
    except duckdb.Error as exc:
        con.close()
        if (error := lake_error(location, exc)) is not None:
            raise error from exc
        raise
    return con


def current_snapshot(location: str) -> int:
    """The lake's latest snapshot id: `ATTACH ... (SNAPSHOT_VERSION n)` or `AT (VERSION => n)` reads it again."""
    con = open_lake(location, read_only=True)
    try:
        row = con.execute(f"SELECT max(snapshot_id) FROM {LAKE}.snapshots()").fetchone()
    finally:
        con.close()  # the cursor; the attached instance stays for the next one
    return int(row[0]) if row and row[0] is not None else 0


def attach_id_sequences(con: duckdb.DuckDBPyConnection, location: str) -> None:
    """`next_fetch_id()` and `next_quarantine_id()` over PostgreSQL sequences, as macros of the in-memory catalog
    (every cursor finds them on its search path; none is stored in the lake)."""
    con.execute(f"ATTACH {literal(lake_conninfo(location))} AS {CATALOG_PG} (TYPE postgres)")
    con.execute(f"CALL postgres_execute('{CATALOG_PG}', {literal(CREATE_ID_SEQUENCES)})")
    for macro, sequence in ID_SEQUENCES.items():
        query = f"SELECT nextval(''{sequence}'') AS id"
        con.execute(
            f"CREATE OR REPLACE MACRO memory.main.{macro}() AS "
            f"(SELECT id FROM postgres_query('{CATALOG_PG}', '{query}'))"
        )


def file_id_sequences(con: duckdb.DuckDBPyConnection) -> None:
    """The same macros on a DuckDB file, over its own sequences."""
    con.execute("CREATE OR REPLACE TEMP MACRO next_fetch_id() AS nextval('fetch_id_seq')")
    con.execute("CREATE OR REPLACE TEMP MACRO next_quarantine_id() AS nextval('quarantine_id_seq')")


SEQUENCE = re.compile(r"CREATE SEQUENCE[^;]*;", re.IGNORECASE)
NEXTVAL_DEFAULT = re.compile(r"\s+DEFAULT nextval\('[^']*'\)", re.IGNORECASE)
TABLE_KEY = re.compile(r",\s*PRIMARY KEY\s*\([^)]*\)", re.IGNORECASE)
COLUMN_KEY = re.compile(r"\s+PRIMARY KEY\b", re.IGNORECASE)
VIEW_NAME = re.compile(r"CREATE (?:OR REPLACE )?VIEW\s+(\w+)", re.IGNORECASE)
VIEW_COLUMN_COMMENT = r"COMMENT ON COLUMN\s+{view}\.\w+\s+IS\s+'(?:[^']|'')*'\s*;"
MACRO_COMMENT = re.compile(r"COMMENT ON MACRO (?:TABLE )?\w+\s+IS\s+'(?:[^']|'')*'\s*;", re.IGNORECASE)


def without_checks(sql_text: str) -> str:
    """The text with every `CHECK (...)` removed (parentheses balanced, string literals respected)."""
    out, i = [], 0
    pattern = re.compile(r"\s+CHECK\s*\(", re.IGNORECASE)
    while (found := pattern.search(sql_text, i)) is not None:
        out.append(sql_text[i : found.start()])
        i = closing(sql_text, found.end())
    out.append(sql_text[i:])
    return "".join(out)


def lake_statements(sql_text: str, views: set[str]) -> str:
    """A schema file as DuckLake takes it: no sequences, keys or CHECKs (warehouse.lake_checks enforces the CHECKs
    before each landing commits), and no comments on view columns or macros (the catalog_comments table keeps
    them on both backends)."""
    text = SEQUENCE.sub("", sql_text)
    text = NEXTVAL_DEFAULT.sub("", text)
    text = TABLE_KEY.sub("", text)
    text = COLUMN_KEY.sub("", text)
    text = without_checks(text)
    text = MACRO_COMMENT.sub("", text)
    for view in views:
        text = re.sub(VIEW_COLUMN_COMMENT.format(view=re.escape(view)), "", text, flags=re.IGNORECASE)
    return text


def view_names(sql_texts: list[str]) -> set[str]:
    return {name for text in sql_texts for name in VIEW_NAME.findall(text)}
