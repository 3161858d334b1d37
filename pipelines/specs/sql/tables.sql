-- Accelerator specifications (kind `spec`): chips, configurations, compute figures, the Neuron SDK release,
-- launch dates and vendor claims. Versioned like aws_instance_spec_history (valid_from / valid_to).

CREATE TABLE IF NOT EXISTS accelerator_chip_history (
    source_id              VARCHAR NOT NULL,
    chip                   VARCHAR NOT NULL,
    neuron_cores           INTEGER CHECK (neuron_cores >= 1),
    neuron_core_version    VARCHAR,
    memory_printed         VARCHAR NOT NULL,
    memory_value           DECIMAL(18, 6) NOT NULL CHECK (memory_value > 0),
    memory_unit            VARCHAR NOT NULL,
    memory_gib             DECIMAL(18, 6) NOT NULL,
    bandwidth_printed      VARCHAR NOT NULL,
    bandwidth_value        DECIMAL(18, 6) NOT NULL CHECK (bandwidth_value > 0),
    bandwidth_unit         VARCHAR NOT NULL,
    bandwidth_gb_s         DECIMAL(18, 6) NOT NULL,
    doc_version            VARCHAR,
    attributes_hash        VARCHAR NOT NULL,
    valid_from             TIMESTAMPTZ NOT NULL,
    valid_to               TIMESTAMPTZ,
    fetch_id               BIGINT NOT NULL,
    source_url             VARCHAR NOT NULL,
    fetched_at             TIMESTAMPTZ NOT NULL,
    sha256                 VARCHAR NOT NULL,
    parser_version         VARCHAR NOT NULL
);

-- Google's TPU chips land beside Neuron's, with their vendor and no NeuronCores: a file made before gains the column
-- (every chip landed before is AWS's); pipelines.specs.landing.upgrade_spec_history drops its two older NOT NULLs.
ALTER TABLE accelerator_chip_history ADD COLUMN IF NOT EXISTS vendor VARCHAR DEFAULT 'AWS';

CREATE TABLE IF NOT EXISTS accelerator_config_history (
    source_id          VARCHAR NOT NULL,
    configuration      VARCHAR NOT NULL,
    chip               VARCHAR NOT NULL,
    chips              INTEGER NOT NULL CHECK (chips >= 1),
    memory_printed     VARCHAR,
    memory_value       DECIMAL(18, 6),
    memory_unit        VARCHAR,
    memory_gib         DECIMAL(18, 6),
    doc_version        VARCHAR,
    attributes_hash    VARCHAR NOT NULL,
    valid_from         TIMESTAMPTZ NOT NULL,
    valid_to           TIMESTAMPTZ,
    fetch_id           BIGINT NOT NULL,
    source_url         VARCHAR NOT NULL,
    fetched_at         TIMESTAMPTZ NOT NULL,
    sha256             VARCHAR NOT NULL,
    parser_version     VARCHAR NOT NULL
);

-- Memory bandwidth of a configuration, read from parser neuron_config/1.1 on: files made before it gain the
-- columns on first open (rows landed before stay NULL until their next refresh opens a version carrying it).
ALTER TABLE accelerator_config_history ADD COLUMN IF NOT EXISTS bandwidth_printed VARCHAR;
ALTER TABLE accelerator_config_history ADD COLUMN IF NOT EXISTS bandwidth_value DECIMAL(18, 6);
ALTER TABLE accelerator_config_history ADD COLUMN IF NOT EXISTS bandwidth_unit VARCHAR;
ALTER TABLE accelerator_config_history ADD COLUMN IF NOT EXISTS bandwidth_gb_s DECIMAL(18, 6);

CREATE TABLE IF NOT EXISTS accelerator_compute_history (
    source_id          VARCHAR NOT NULL,
    subject_kind       VARCHAR NOT NULL CHECK (subject_kind IN ('chip', 'configuration')),
    subject            VARCHAR NOT NULL,
    chip               VARCHAR NOT NULL,
    number_format      VARCHAR NOT NULL,
    label_printed      VARCHAR NOT NULL,
    value              DECIMAL(18, 6) NOT NULL CHECK (value > 0),
    unit               VARCHAR NOT NULL,
    sparse             BOOLEAN NOT NULL,
    tera               DECIMAL(18, 6) NOT NULL,
    doc_version        VARCHAR,
    attributes_hash    VARCHAR NOT NULL,
    valid_from         TIMESTAMPTZ NOT NULL,
    valid_to           TIMESTAMPTZ,
    fetch_id           BIGINT NOT NULL,
    source_url         VARCHAR NOT NULL,
    fetched_at         TIMESTAMPTZ NOT NULL,
    sha256             VARCHAR NOT NULL,
    parser_version     VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS neuron_sdk_release_history (
    source_id          VARCHAR NOT NULL,
    product            VARCHAR NOT NULL,
    version            VARCHAR NOT NULL,
    release_date       DATE NOT NULL,
    date_printed       VARCHAR NOT NULL,
    other_dates        VARCHAR,
    attributes_hash    VARCHAR NOT NULL,
    valid_from         TIMESTAMPTZ NOT NULL,
    valid_to           TIMESTAMPTZ,
    fetch_id           BIGINT NOT NULL,
    source_url         VARCHAR NOT NULL,
    fetched_at         TIMESTAMPTZ NOT NULL,
    sha256             VARCHAR NOT NULL,
    parser_version     VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS accelerator_launch_history (
    source_id            VARCHAR NOT NULL,
    family               VARCHAR NOT NULL,
    chip                 VARCHAR,
    launch_date          DATE NOT NULL,
    status               VARCHAR NOT NULL CHECK (status IN ('ga', 'preview', 'announced')),
    launch_source_url    VARCHAR NOT NULL,
    note                 VARCHAR,
    attributes_hash      VARCHAR NOT NULL,
    valid_from           TIMESTAMPTZ NOT NULL,
    valid_to             TIMESTAMPTZ,
    fetch_id             BIGINT NOT NULL,
    source_url           VARCHAR NOT NULL,
    fetched_at           TIMESTAMPTZ NOT NULL,
    sha256               VARCHAR NOT NULL,
    parser_version       VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS vendor_claim_history (
    source_id          VARCHAR NOT NULL,
    claim_text         VARCHAR NOT NULL,
    page_url           VARCHAR NOT NULL,
    page_title         VARCHAR,
    page_date          DATE,
    is_claim           BOOLEAN NOT NULL CHECK (is_claim),
    attributes_hash    VARCHAR NOT NULL,
    valid_from         TIMESTAMPTZ NOT NULL,
    valid_to           TIMESTAMPTZ,
    fetch_id           BIGINT NOT NULL,
    source_url         VARCHAR NOT NULL,
    fetched_at         TIMESTAMPTZ NOT NULL,
    sha256             VARCHAR NOT NULL,
    parser_version     VARCHAR NOT NULL
);

-- The curated NVIDIA reference (pipelines/reference/nvidia_gpus.json, kind `spec`): one row per GPU and figure,
-- each figure with its own source URL and date. Versioned like the other spec tables.

CREATE TABLE IF NOT EXISTS gpu_reference_figure_history (
    source_id            VARCHAR NOT NULL,
    gpu                  VARCHAR NOT NULL,
    gpu_model            VARCHAR NOT NULL,
    gpu_variant          VARCHAR,
    aws_accelerator      VARCHAR,
    aws_memory_gb        DECIMAL(18, 6),
    figure_key           VARCHAR NOT NULL,
    figure               VARCHAR NOT NULL CHECK (figure IN ('memory', 'bandwidth', 'compute')),
    number_format        VARCHAR,
    sparse               BOOLEAN,
    printed              VARCHAR NOT NULL,
    value                DECIMAL(18, 6) NOT NULL CHECK (value > 0),
    unit                 VARCHAR NOT NULL,
    normalised           DECIMAL(18, 6) NOT NULL,
    normalised_unit      VARCHAR NOT NULL,
    figure_source_url    VARCHAR NOT NULL,
    figure_source_date   DATE NOT NULL,
    note                 VARCHAR,
    attributes_hash      VARCHAR NOT NULL,
    valid_from           TIMESTAMPTZ NOT NULL,
    valid_to             TIMESTAMPTZ,
    fetch_id             BIGINT NOT NULL,
    source_url           VARCHAR NOT NULL,
    fetched_at           TIMESTAMPTZ NOT NULL,
    sha256               VARCHAR NOT NULL,
    parser_version       VARCHAR NOT NULL
);
