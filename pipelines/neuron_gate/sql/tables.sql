-- The Neuron software gate: the package manifest, the documentation's status statements and release dates,
-- versioned per source like the specifications (valid_from / valid_to).

CREATE TABLE IF NOT EXISTS neuron_package_history (
    source_id          VARCHAR NOT NULL,
    release            VARCHAR NOT NULL,
    package            VARCHAR NOT NULL,
    package_version    VARCHAR NOT NULL,
    instances          VARCHAR[] NOT NULL,
    unread_instances   VARCHAR[] NOT NULL,
    python_versions    VARCHAR[] NOT NULL,
    attributes_hash    VARCHAR NOT NULL,
    valid_from         TIMESTAMPTZ NOT NULL,
    valid_to           TIMESTAMPTZ,
    fetch_id           BIGINT NOT NULL,
    source_url         VARCHAR NOT NULL,
    fetched_at         TIMESTAMPTZ NOT NULL,
    sha256             VARCHAR NOT NULL,
    parser_version     VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS neuron_support_history (
    source_id          VARCHAR NOT NULL,
    package            VARCHAR NOT NULL,
    framework          VARCHAR NOT NULL,
    manifest_package   VARCHAR,
    status             VARCHAR NOT NULL CHECK (status IN ('recommended', 'supported', 'beta', 'archived',
                                                          'not included', 'end of support')),
    printed_statuses   VARCHAR[] NOT NULL,
    instances          VARCHAR[],
    instances_only     BOOLEAN,
    from_release       VARCHAR,
    doc_release        VARCHAR,
    quoted             VARCHAR NOT NULL,
    attributes_hash    VARCHAR NOT NULL,
    valid_from         TIMESTAMPTZ NOT NULL,
    valid_to           TIMESTAMPTZ,
    fetch_id           BIGINT NOT NULL,
    source_url         VARCHAR NOT NULL,
    fetched_at         TIMESTAMPTZ NOT NULL,
    sha256             VARCHAR NOT NULL,
    parser_version     VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS neuron_release_date_history (
    source_id          VARCHAR NOT NULL,
    release            VARCHAR NOT NULL,
    release_date       DATE NOT NULL,
    date_printed       VARCHAR NOT NULL,
    attributes_hash    VARCHAR NOT NULL,
    valid_from         TIMESTAMPTZ NOT NULL,
    valid_to           TIMESTAMPTZ,
    fetch_id           BIGINT NOT NULL,
    source_url         VARCHAR NOT NULL,
    fetched_at         TIMESTAMPTZ NOT NULL,
    sha256             VARCHAR NOT NULL,
    parser_version     VARCHAR NOT NULL
);

-- Whether a statement limits itself to the families it names, read since that was told apart: NULL on a row landed
-- before (not stated, never "only").
ALTER TABLE neuron_support_history ADD COLUMN IF NOT EXISTS instances_only BOOLEAN;

-- What an announcement adds, read since announcements are: NULL on rows landed before (not stated).
ALTER TABLE neuron_support_history ADD COLUMN IF NOT EXISTS work VARCHAR;
ALTER TABLE neuron_support_history ADD COLUMN IF NOT EXISTS in_maintenance BOOLEAN;
ALTER TABLE neuron_support_history ADD COLUMN IF NOT EXISTS announced_on DATE;

-- The last release an announcement says has a package, and the versions of a package a statement speaks of, read
-- since versions are: NULL on rows landed before (not stated; a NULL version scope is the package as a whole).
ALTER TABLE neuron_support_history ADD COLUMN IF NOT EXISTS last_release VARCHAR;
ALTER TABLE neuron_support_history ADD COLUMN IF NOT EXISTS versions VARCHAR;

-- The SDK maintenance policy's life-cycle phases: what the documentation's status words mean, quoted.
CREATE TABLE IF NOT EXISTS neuron_lifecycle_history (
    source_id          VARCHAR NOT NULL,
    phase              VARCHAR NOT NULL,
    also_called        VARCHAR,
    printed            VARCHAR NOT NULL,
    meaning            VARCHAR NOT NULL,
    applies            VARCHAR,
    attributes_hash    VARCHAR NOT NULL,
    valid_from         TIMESTAMPTZ NOT NULL,
    valid_to           TIMESTAMPTZ,
    fetch_id           BIGINT NOT NULL,
    source_url         VARCHAR NOT NULL,
    fetched_at         TIMESTAMPTZ NOT NULL,
    sha256             VARCHAR NOT NULL,
    parser_version     VARCHAR NOT NULL
);
