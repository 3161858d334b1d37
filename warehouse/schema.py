"""Keeping an open warehouse's schema current: the schema files, then the upgrades of rows landed before them.

Below warehouse.db, which ensures the schema on every writable connection. The files and upgrades are the ones
the kinds declared (warehouse.sql_files): this module knows no kind.
"""

from __future__ import annotations

import hashlib

import duckdb

from warehouse.binding import execute
from warehouse.catalog_comments import record_catalog_comments
from warehouse.failpoints import failpoint
from warehouse.lake import lake_statements, view_names
from warehouse.lake_stats import give_statistics, lake_tables
from warehouse.sql_files import schema_files, schema_parts, sql
from warehouse.transactions import in_transaction


def schema_sha256() -> str:
    """One hash over every schema file and every file a kind's upgrade reads (the AWS region reference): a different
    hash means the DDL, views or comments changed, or landed rows need their upgrade again."""
    digest = hashlib.sha256()
    for path in schema_files():
        digest.update(sql(path).encode())
    for part in schema_parts():
        for path in part.hashed_files:
            digest.update(path.read_bytes())
    return digest.hexdigest()


SCHEMA_APPLIED = "SELECT sql_sha256 FROM schema_version"
STAMP_APPLIED_NOW = "UPDATE schema_version SET applied_at = current_timestamp"  # a copied empty file's own time
RECORD_SCHEMA = "CREATE OR REPLACE TABLE schema_version AS SELECT $sha AS sql_sha256, current_timestamp AS applied_at"
COMMENT_SCHEMA = """
COMMENT ON TABLE schema_version IS 'Hash of the schema SQL files (warehouse/sql and each kind''s pipelines/<kind>/sql) last applied to this file; opening a file whose hash differs applies them again.';
COMMENT ON COLUMN schema_version.sql_sha256 IS 'SHA-256 over the table, view and comment SQL files, in the order they run, and the files the kinds'' upgrades read (the AWS region reference, schemas/aws_regions.json).';
COMMENT ON COLUMN schema_version.applied_at IS 'When they were applied (UTC).';
"""  # noqa: E501 - comment texts are SQL literals, kept whole


def schema_texts(lake: bool) -> list[str]:
    texts = [sql(path) for path in schema_files()]
    if not lake:
        return texts
    views = view_names(texts)
    return [lake_statements(text, views) for text in texts]


def applied_schema(con: duckdb.DuckDBPyConnection) -> list[tuple[str]]:
    try:
        return con.execute(SCHEMA_APPLIED).fetchall()
    except duckdb.CatalogException:
        return []


def upgrade_history(con: duckdb.DuckDBPyConnection) -> None:
    """Each kind's upgrade of the rows it landed before its current tables, in the kinds' order."""
    for part in schema_parts():
        if part.upgrade is not None:
            part.upgrade(con, part)


def apply_schema(con: duckdb.DuckDBPyConnection, wanted: str, lake: bool) -> None:
    before = lake_tables(con) if lake else set()
    for text in schema_texts(lake):
        con.execute(text)
        failpoint("schema-file")  # stop tests signal here: some schema files applied, not all
    if lake:
        give_statistics(con, lake_tables(con) - before)
    upgrade_history(con)
    record_catalog_comments(con, schema_files(), sql)
    execute(con, RECORD_SCHEMA, {"sha": wanted})
    con.execute(COMMENT_SCHEMA)


def ensure_schema(con: duckdb.DuckDBPyConnection, *, lake: bool = False) -> None:
    """Apply the schema files unless this warehouse already has exactly these (saves ~0.35 s per connection).
    In one transaction: a stop halfway leaves the schema as it was, and two writers opening a new lake at once
    conflict, the loser finding it done. A file is then checkpointed: DuckDB 1.5.5 cannot replay a WAL holding
    the schema's `ALTER TABLE ... ADD COLUMN` on a table whose defaults call nextval (an INTERNAL error on every
    later open), so a stop before the next checkpoint must find the schema in the file, not in its WAL."""
    wanted = schema_sha256()
    if applied_schema(con) == [(wanted,)]:
        return
    in_transaction(con, lambda: None if applied_schema(con) == [(wanted,)] else apply_schema(con, wanted, lake))
    if not lake:
        con.execute("CHECKPOINT")
