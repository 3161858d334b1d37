-- AWS price-list prices (the Bulk API regional offer files and the spot feed), versioned like the page prices.
-- Money is DECIMAL as printed (10 decimals); derived figures are computed once in schemas/pricelist.py.

CREATE TABLE IF NOT EXISTS aws_pricelist_price_history (
    source_id                         VARCHAR NOT NULL,
    region_code                       VARCHAR NOT NULL,
    location                          VARCHAR,
    instance_type                     VARCHAR NOT NULL,
    family                            VARCHAR NOT NULL,
    price_kind                        VARCHAR NOT NULL CHECK (price_kind IN ('on_demand', 'reserved', 'spot',
                                          'compute_savings_plan', 'ec2_instance_savings_plan',
                                          'sagemaker_hosting', 'sagemaker_training')),
    lease_years                       INTEGER CHECK (lease_years IN (1, 3)),
    purchase_option                   VARCHAR
        CHECK (purchase_option IN ('No Upfront', 'Partial Upfront', 'All Upfront')),
    offering_class                    VARCHAR CHECK (offering_class IN ('standard', 'convertible')),
    hourly_usd                        DECIMAL(24, 10) NOT NULL CHECK (hourly_usd >= 0),
    upfront_usd                       DECIMAL(24, 10) CHECK (upfront_usd >= 0),
    effective_usd_per_instance_hour   DECIMAL(38, 18) NOT NULL CHECK (effective_usd_per_instance_hour > 0),
    accelerator                       VARCHAR,
    accelerator_count                 INTEGER NOT NULL CHECK (accelerator_count >= 1),
    accelerator_count_basis           VARCHAR NOT NULL CHECK (accelerator_count_basis IN ('catalog', 'price_list')),
    price_list_gpu                    VARCHAR,
    usd_per_accelerator_hour          DECIMAL(38, 18) NOT NULL,
    usd_per_accelerator_hour_4dp      DECIMAL(18, 4) NOT NULL,
    accelerator_memory_printed        VARCHAR,
    accelerator_memory_value          DECIMAL(18, 6),
    accelerator_memory_unit           VARCHAR,
    accelerator_memory_gib            DECIMAL(18, 6),
    accelerator_memory_basis          VARCHAR CHECK (accelerator_memory_basis IN ('price_list', 'catalog')),
    indicative                        BOOLEAN NOT NULL,
    sku                               VARCHAR,
    rate_code                         VARCHAR,
    offer_version                     VARCHAR,
    publication_date                  TIMESTAMPTZ,
    attributes_hash                   VARCHAR NOT NULL,
    valid_from                        TIMESTAMPTZ NOT NULL,
    valid_to                          TIMESTAMPTZ,
    fetch_id                          BIGINT NOT NULL,
    source_url                        VARCHAR NOT NULL,
    fetched_at                        TIMESTAMPTZ NOT NULL,
    sha256                            VARCHAR NOT NULL,
    parser_version                    VARCHAR NOT NULL
);

-- The offer file each landing came from, per source and region: a newer file closes the row of the older one
-- (valid_to), the same file again adds nothing. The publication-date gate compares a new file with the open row.
CREATE TABLE IF NOT EXISTS aws_pricelist_offers (
    source_id         VARCHAR NOT NULL,
    region_code       VARCHAR NOT NULL,
    offer_version     VARCHAR,
    publication_date  TIMESTAMPTZ,
    price_rows        INTEGER NOT NULL,
    valid_to          TIMESTAMPTZ,
    fetch_id          BIGINT NOT NULL,
    source_url        VARCHAR NOT NULL,
    fetched_at        TIMESTAMPTZ NOT NULL,
    sha256            VARCHAR NOT NULL,
    parser_version    VARCHAR NOT NULL
);

-- A fractional GPU's share of its one GPU (g6f); files made before it get the column, NULL on every row.
ALTER TABLE aws_pricelist_price_history ADD COLUMN IF NOT EXISTS accelerator_share DECIMAL(7, 6);

-- The type catalog that comes from the data: what each regional offer file says of each accelerator type (GPU,
-- GPU Memory as printed) and the figures its prices use. Versioned per (source, region) like the prices; the
-- spot feed's quotes take their figures from the newest open row of the same type.
CREATE TABLE IF NOT EXISTS aws_pricelist_type_history (
    source_id                 VARCHAR NOT NULL,
    region_code               VARCHAR NOT NULL,
    instance_type             VARCHAR NOT NULL,
    family                    VARCHAR NOT NULL,
    price_list_gpu            VARCHAR,
    price_list_gpu_memory     VARCHAR,
    accelerator               VARCHAR,
    accelerator_count         INTEGER NOT NULL CHECK (accelerator_count >= 1),
    accelerator_share         DECIMAL(7, 6) CHECK (accelerator_share > 0 AND accelerator_share < 1),
    accelerator_count_basis   VARCHAR NOT NULL CHECK (accelerator_count_basis IN ('catalog', 'price_list')),
    accelerator_memory_value  DECIMAL(18, 6),
    accelerator_memory_unit   VARCHAR,
    accelerator_memory_gib    DECIMAL(18, 6),
    accelerator_memory_basis  VARCHAR CHECK (accelerator_memory_basis IN ('price_list', 'catalog')),
    curated_why               VARCHAR,
    offer_version             VARCHAR,
    publication_date          TIMESTAMPTZ,
    attributes_hash           VARCHAR NOT NULL,
    valid_from                TIMESTAMPTZ NOT NULL,
    valid_to                  TIMESTAMPTZ,
    fetch_id                  BIGINT NOT NULL,
    source_url                VARCHAR NOT NULL,
    fetched_at                TIMESTAMPTZ NOT NULL,
    sha256                    VARCHAR NOT NULL,
    parser_version            VARCHAR NOT NULL
);

-- Each past offer version landed by `ratecard backfill pricelist`, per region unit: what a second or resumed
-- backfill skips, and the date its rows were landed at (the version's effective date, not the fetch time).
CREATE TABLE IF NOT EXISTS aws_pricelist_backfill (
    source_id         VARCHAR NOT NULL,
    region_code       VARCHAR NOT NULL,
    offer_version     VARCHAR NOT NULL,
    effective_from    TIMESTAMPTZ NOT NULL,
    effective_to      TIMESTAMPTZ,
    publication_date  TIMESTAMPTZ,
    price_rows        INTEGER NOT NULL,
    fetch_id          BIGINT NOT NULL,
    source_url        VARCHAR NOT NULL,
    fetched_at        TIMESTAMPTZ NOT NULL,
    sha256            VARCHAR NOT NULL,
    parser_version    VARCHAR NOT NULL
);
