"""The warehouse/sql files the schema is made of, in the order they run.

A leaf (pathlib only): the schema, the lake's CHECK enforcement and the tests read the same list without importing
the connection code.
"""

from __future__ import annotations

from pathlib import Path

SQL_DIR = Path(__file__).resolve().parent / "sql"
# Order matters: views need the tables, and CREATE OR REPLACE VIEW drops a view's comments.
SCHEMA_FILES = (
    "schema.sql",
    "schema_gpu.sql",
    "schema_pricelist.sql",
    "comments.sql",
    "comments_gpu.sql",
    "comments_pricelist.sql",
    "views.sql",
    "views_gpu.sql",
    "views_pricelist.sql",
    "comments_views.sql",
    "comments_views_gpu.sql",
    "comments_views_pricelist.sql",
    "schema_changes.sql",
    "views_changes.sql",
    "comments_views_changes.sql",
    "schema_specs.sql",
    "views_specs.sql",
    "comments_specs.sql",
    "schema_pilots.sql",
    "views_pilots.sql",
    "comments_pilots.sql",
    "views_deployment.sql",
    "comments_deployment.sql",
    "schema_nvidia.sql",
    "views_value.sql",
    "comments_value.sql",
    "schema_catalog_comments.sql",
)


def sql(name: str) -> str:
    return (SQL_DIR / name).read_text()
