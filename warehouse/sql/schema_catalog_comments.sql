-- Every comment of the schema files as a table: a DuckLake keeps comments on tables, views and table columns
-- but none on view columns or macros, so clients of either backend can read them all here. Refilled with the schema.

CREATE TABLE IF NOT EXISTS catalog_comments (
    object_kind  VARCHAR NOT NULL,
    object_name  VARCHAR NOT NULL,
    column_name  VARCHAR,
    comment      VARCHAR NOT NULL
);

COMMENT ON TABLE catalog_comments IS 'The comment of every ratecard table, view, macro and column, as warehouse/sql states it. A DuckDB file also shows them in duckdb_tables(), duckdb_views(), duckdb_functions() and duckdb_columns(); a DuckLake keeps none for view columns or macros, so read them here. Refilled whenever the schema is applied.';
COMMENT ON COLUMN catalog_comments.object_kind IS 'table, view, macro or column (a table''s or a view''s).';
COMMENT ON COLUMN catalog_comments.object_name IS 'Table, view or macro name.';
COMMENT ON COLUMN catalog_comments.column_name IS 'The column, for object_kind column; NULL otherwise.';
COMMENT ON COLUMN catalog_comments.comment IS 'The COMMENT ON text.';
