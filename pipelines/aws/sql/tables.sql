-- AWS instance specifications and prices read from the product and Capacity Blocks pages, versioned by
-- business key (valid_from / valid_to). Money is DECIMAL, never DOUBLE.

CREATE TABLE IF NOT EXISTS aws_instance_spec_history (
    source_id                   VARCHAR NOT NULL,
    instance_type               VARCHAR NOT NULL,
    family                      VARCHAR NOT NULL,
    accelerator                 VARCHAR NOT NULL,
    accelerator_count           INTEGER NOT NULL CHECK (accelerator_count >= 1),
    accelerator_memory_value    DECIMAL(18, 6),
    accelerator_memory_unit     VARCHAR,
    accelerator_memory_gib      DECIMAL(18, 6),
    accelerator_memory_derived  BOOLEAN NOT NULL,
    accelerator_memory_basis    VARCHAR,
    vcpus                       INTEGER,
    host_memory_gib             DECIMAL(18, 6),
    attributes_hash             VARCHAR NOT NULL,
    valid_from                  TIMESTAMPTZ NOT NULL,
    valid_to                    TIMESTAMPTZ,
    fetch_id                    BIGINT NOT NULL,
    source_url                  VARCHAR NOT NULL,
    fetched_at                  TIMESTAMPTZ NOT NULL,
    sha256                      VARCHAR NOT NULL,
    parser_version              VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS aws_instance_price_history (
    source_id                         VARCHAR NOT NULL,
    instance_type                     VARCHAR NOT NULL,
    price_kind                        VARCHAR NOT NULL
        CHECK (price_kind IN ('on_demand', 'reserved_1y', 'reserved_3y', 'capacity_block')),
    region                            VARCHAR,
    region_stated                     BOOLEAN NOT NULL,
    usd_per_instance_hour             DECIMAL(18, 6) NOT NULL CHECK (usd_per_instance_hour > 0),
    accelerator_count                 INTEGER NOT NULL CHECK (accelerator_count >= 1),
    usd_per_accelerator_hour          DECIMAL(38, 18) NOT NULL,
    usd_per_accelerator_hour_4dp      DECIMAL(18, 4) NOT NULL,
    printed_usd_per_accelerator_hour  DECIMAL(18, 6),
    attributes_hash                   VARCHAR NOT NULL,
    valid_from                        TIMESTAMPTZ NOT NULL,
    valid_to                          TIMESTAMPTZ,
    fetch_id                          BIGINT NOT NULL,
    source_url                        VARCHAR NOT NULL,
    fetched_at                        TIMESTAMPTZ NOT NULL,
    sha256                            VARCHAR NOT NULL,
    parser_version                    VARCHAR NOT NULL
);

-- Added with the price-list source family: the region code of the printed region (Capacity Blocks page rows).
-- Older files gain the column here and its values from pipelines.aws.landing.backfill_region_codes.
ALTER TABLE aws_instance_price_history ADD COLUMN IF NOT EXISTS region_code VARCHAR;
