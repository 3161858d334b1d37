-- GPU-provider listings, versioned like AWS prices.

CREATE TABLE IF NOT EXISTS gpu_listing_history (
    source_id               VARCHAR NOT NULL,
    provider                VARCHAR NOT NULL,
    listing                 VARCHAR NOT NULL,
    gpu_name                VARCHAR NOT NULL,
    gpu_model               VARCHAR,
    gpu_variant             VARCHAR,
    gpu_memory_gib          DECIMAL(18, 6),
    gpu_count               INTEGER NOT NULL CHECK (gpu_count >= 1),
    price_kind              VARCHAR NOT NULL CHECK (price_kind IN ('on_demand', 'community', 'spot', 'reserved',
                                                                   'reserved_1y', 'reserved_3y', 'savings_plan_1y',
                                                                   'savings_plan_3y', 'committed_use_1y',
                                                                   'committed_use_3y', 'flexible_cud_1y',
                                                                   'flexible_cud_3y', 'dws_flex_start', 'dws_calendar',
                                                                   'serverless', 'serverless_active')),
    original_amount         DECIMAL(24, 12) NOT NULL CHECK (original_amount > 0),
    original_currency       VARCHAR NOT NULL,
    original_unit           VARCHAR NOT NULL,
    price_per               VARCHAR NOT NULL CHECK (price_per IN ('gpu', 'instance')),
    period                  VARCHAR NOT NULL CHECK (period IN ('second', 'minute', 'hour', 'day', 'week', 'month', 'year',
                                                            '3 years')),
    usd_per_currency_unit   DECIMAL(20, 10) NOT NULL CHECK (usd_per_currency_unit > 0),
    fx_rate_date            DATE,
    fx_rate_stale           BOOLEAN,
    usd_per_gpu_hour        DECIMAL(38, 18) NOT NULL CHECK (usd_per_gpu_hour > 0),
    usd_per_gpu_hour_4dp    DECIMAL(18, 4) NOT NULL,
    stock_status            VARCHAR NOT NULL CHECK (stock_status IN ('in_stock', 'sold_out', 'unknown')),
    region                  VARCHAR,
    offer_count             INTEGER NOT NULL CHECK (offer_count >= 1),
    attributes_hash         VARCHAR NOT NULL,
    valid_from              TIMESTAMPTZ NOT NULL,
    valid_to                TIMESTAMPTZ,
    fetch_id                BIGINT NOT NULL,
    source_url              VARCHAR NOT NULL,
    fetched_at              TIMESTAMPTZ NOT NULL,
    sha256                  VARCHAR NOT NULL,
    parser_version          VARCHAR NOT NULL
);

-- Files made before these columns existed (CREATE TABLE IF NOT EXISTS leaves them as they were). Their rows'
-- fx_rate_stale is filled in by pipelines.gpu.landing.upgrade_gpu_history.
ALTER TABLE gpu_listing_history ADD COLUMN IF NOT EXISTS fx_rate_stale BOOLEAN;

-- Memory as the listing printed it, with its unit, and whether the figure came from ratecard's GPU catalog.
-- Rows landed before these existed are brought up in place by pipelines.gpu.landing.upgrade_gpu_history.
ALTER TABLE gpu_listing_history ADD COLUMN IF NOT EXISTS gpu_memory_printed DECIMAL(18, 6);
ALTER TABLE gpu_listing_history ADD COLUMN IF NOT EXISTS gpu_memory_unit VARCHAR;
ALTER TABLE gpu_listing_history ADD COLUMN IF NOT EXISTS gpu_memory_from_catalog BOOLEAN;

-- Serverless GPUs (billed per second, scaling to zero): the exact per-second price and the billing terms the
-- provider states. NULL on every other price kind. Files whose CHECKs predate the serverless kinds and the
-- per-second period are rebuilt once by pipelines.gpu.landing.upgrade_gpu_history.
ALTER TABLE gpu_listing_history ADD COLUMN IF NOT EXISTS usd_per_gpu_second DECIMAL(38, 18);
ALTER TABLE gpu_listing_history ADD COLUMN IF NOT EXISTS billing_increment_seconds INTEGER;
ALTER TABLE gpu_listing_history ADD COLUMN IF NOT EXISTS idle_timeout_seconds INTEGER;
ALTER TABLE gpu_listing_history ADD COLUMN IF NOT EXISTS cold_start_billed BOOLEAN;
ALTER TABLE gpu_listing_history ADD COLUMN IF NOT EXISTS billing_terms VARCHAR;
ALTER TABLE gpu_listing_history ADD COLUMN IF NOT EXISTS billing_terms_url VARCHAR;
