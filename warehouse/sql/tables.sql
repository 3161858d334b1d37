-- ratecard warehouse tables. Idempotent: run on every connection that writes.
-- Money is DECIMAL, never DOUBLE. History tables are versioned by business key (valid_from / valid_to).

CREATE SEQUENCE IF NOT EXISTS fetch_id_seq START 1;
CREATE SEQUENCE IF NOT EXISTS quarantine_id_seq START 1;

CREATE TABLE IF NOT EXISTS fetch_log (
    fetch_id        BIGINT PRIMARY KEY DEFAULT nextval('fetch_id_seq'),
    source_id       VARCHAR NOT NULL,
    url             VARCHAR NOT NULL,
    final_url       VARCHAR,
    status          INTEGER,
    fetched_at      TIMESTAMPTZ NOT NULL,
    sha256          VARCHAR,
    bytes           BIGINT,
    elapsed_ms      INTEGER,
    attempts        INTEGER,
    content_type    VARCHAR,
    parser_version  VARCHAR,
    outcome         VARCHAR NOT NULL CHECK (outcome IN ('landed', 'unchanged', 'quarantined', 'fetch_failed')),
    rows_inserted   INTEGER NOT NULL DEFAULT 0,
    rows_closed     INTEGER NOT NULL DEFAULT 0,
    error           VARCHAR
);

-- Columns added after the first release: files made by an earlier version gain them on first open.
ALTER TABLE fetch_log ADD COLUMN IF NOT EXISTS shape_fingerprint VARCHAR;
ALTER TABLE fetch_log ADD COLUMN IF NOT EXISTS warnings VARCHAR[];

CREATE TABLE IF NOT EXISTS quarantine (
    quarantine_id   BIGINT PRIMARY KEY DEFAULT nextval('quarantine_id_seq'),
    source_id       VARCHAR NOT NULL,
    fetch_id        BIGINT NOT NULL,
    url             VARCHAR NOT NULL,
    fetched_at      TIMESTAMPTZ NOT NULL,
    sha256          VARCHAR NOT NULL,
    parser_version  VARCHAR,
    stage           VARCHAR NOT NULL CHECK (stage IN ('parse', 'validate')),
    reasons         VARCHAR[] NOT NULL,
    raw_body        BLOB NOT NULL,
    quarantined_at  TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);

-- Dated captures of a source's page made by others, as `ratecard backfill captures` landed them.
CREATE TABLE IF NOT EXISTS capture_log (
    capture_id      VARCHAR NOT NULL,
    capture_set     VARCHAR NOT NULL,
    source_id       VARCHAR NOT NULL,
    reader          VARCHAR NOT NULL,
    captured_at     TIMESTAMPTZ NOT NULL,
    fetch_id        BIGINT NOT NULL,
    url             VARCHAR NOT NULL,
    sha256          VARCHAR NOT NULL,
    outcome         VARCHAR NOT NULL CHECK (outcome IN ('landed', 'unchanged', 'quarantined')),
    parser_version  VARCHAR NOT NULL
);

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
