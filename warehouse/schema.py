"""Keeping an open warehouse's schema current: the schema files, then the upgrades of rows landed before them.

Above the landings (it runs their history upgrades) and below warehouse.db (which ensures the schema on every
writable connection), so neither the landings nor this module import the connection code.
"""

from __future__ import annotations

import hashlib

import duckdb

from schemas.regions import REGIONS_FILE
from warehouse.binding import execute
from warehouse.catalog_comments import record_catalog_comments
from warehouse.failpoints import failpoint
from warehouse.lake import lake_statements, view_names
from warehouse.lake_stats import give_statistics, lake_tables
from warehouse.rebuild import rebuild_if_check_refuses
from warehouse.sql_files import SCHEMA_FILES, sql
from warehouse.transactions import in_transaction


def schema_sha256() -> str:
    """One hash over every schema file and the region reference: a different hash means the DDL, views or
    comments changed, or page rows' region codes need filling in again (landing.backfill_region_codes)."""
    digest = hashlib.sha256()
    for name in SCHEMA_FILES:
        digest.update(sql(name).encode())
    digest.update(REGIONS_FILE.read_bytes())
    return digest.hexdigest()


SCHEMA_APPLIED = "SELECT sql_sha256 FROM schema_version"
STAMP_APPLIED_NOW = "UPDATE schema_version SET applied_at = current_timestamp"  # a copied empty file's own time
RECORD_SCHEMA = "CREATE OR REPLACE TABLE schema_version AS SELECT $sha AS sql_sha256, current_timestamp AS applied_at"
COMMENT_SCHEMA = """
COMMENT ON TABLE schema_version IS 'Hash of the warehouse/sql files last applied to this file; opening a file whose hash differs applies them again.';
COMMENT ON COLUMN schema_version.sql_sha256 IS 'SHA-256 over the schema, view and comment SQL files, in the order they run, and the AWS region reference (schemas/aws_regions.json).';
COMMENT ON COLUMN schema_version.applied_at IS 'When they were applied (UTC).';
"""  # noqa: E501 - comment texts are SQL literals, kept whole


def schema_texts(lake: bool) -> list[str]:
    texts = [sql(name) for name in SCHEMA_FILES]
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
    """Data a new column needs in rows landed before it existed, and attribute hashes in the current definition."""
    # Late: only a schema change needs the landings, and they bring pydantic and the batch models (~0.15 s) to
    # every process that connects, `ratecard show` included. Neither imports this module: no circle.
    from warehouse.gpu_landing import upgrade_gpu_history
    from warehouse.landing import upgrade_aws_history
    from warehouse.pricelist_landing import upgrade_pricelist_history
    from warehouse.spec_landing import upgrade_spec_history

    upgrade_gpu_history(con)
    upgrade_aws_history(con)
    upgrade_pricelist_history(con)
    upgrade_spec_history(con)
    # Files made before traffic profiles: pilot_inputs' CHECK refuses their input kind.
    rebuild_if_check_refuses(con, "pilot_inputs", "input_kind", "traffic", "schema_pilots.sql", "comments_pilots.sql")


def apply_schema(con: duckdb.DuckDBPyConnection, wanted: str, lake: bool) -> None:
    before = lake_tables(con) if lake else set()
    for text in schema_texts(lake):
        con.execute(text)
        failpoint("schema-file")  # stop tests signal here: some schema files applied, not all
    if lake:
        give_statistics(con, lake_tables(con) - before)
    upgrade_history(con)
    record_catalog_comments(con, SCHEMA_FILES, sql)
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
