-- Public GPU views: add columns freely, rename none.

CREATE OR REPLACE MACRO gpu_listings_as_of(ts) AS TABLE
SELECT provider, listing, gpu_name, gpu_model, gpu_variant, gpu_memory_gib, gpu_count, price_kind,
       original_amount, original_currency, original_unit, price_per, period,
       usd_per_currency_unit, fx_rate_date, fx_rate_stale,
       usd_per_gpu_hour, usd_per_gpu_hour_4dp,
       stock_status, region, offer_count,
       gpu_model IS NOT NULL AS gpu_name_recognised,
       source_id, source_url, fetched_at, sha256, parser_version, fetch_id, valid_from, valid_to,
       gpu_memory_printed, gpu_memory_unit, gpu_memory_from_catalog,
       usd_per_gpu_second, billing_increment_seconds, idle_timeout_seconds, cold_start_billed,
       billing_terms, billing_terms_url,
       sha256 AS content_sha256,  -- the name every price view gives the body's hash (sha256 stays for old readers)
       (SELECT c.capture_id FROM capture_log AS c WHERE c.fetch_id = h.fetch_id) AS backfilled_from
FROM gpu_listing_history AS h
WHERE valid_from <= CAST(ts AS TIMESTAMPTZ)
  AND (valid_to IS NULL OR valid_to > CAST(ts AS TIMESTAMPTZ));

CREATE OR REPLACE VIEW gpu_listings AS
SELECT * FROM gpu_listings_as_of('infinity');

-- Per canonical model: the cheapest on-demand listing not stated sold out (most pricing pages state no stock: their
-- listings stay in, their stock shown as unknown), how many providers offer one, and how many of those state it in stock.
CREATE OR REPLACE VIEW gpu_cheapest AS
WITH offered AS (
    SELECT * FROM gpu_listings
    WHERE gpu_model IS NOT NULL AND price_kind = 'on_demand' AND stock_status <> 'sold_out'
),
ranked AS (
    SELECT *,
           row_number() OVER (PARTITION BY gpu_model ORDER BY usd_per_gpu_hour, provider, listing) AS price_rank,
           count(DISTINCT provider) OVER (PARTITION BY gpu_model) AS providers_offering,
           count(DISTINCT provider) FILTER (WHERE stock_status = 'in_stock')
               OVER (PARTITION BY gpu_model) AS providers_in_stock
    FROM offered
)
SELECT gpu_model, usd_per_gpu_hour, usd_per_gpu_hour_4dp, provider, providers_in_stock,
       listing, gpu_variant, original_amount, original_currency, original_unit, source_url, fetched_at,
       sha256 AS content_sha256, parser_version, stock_status, providers_offering
FROM ranked
WHERE price_rank = 1;

-- Per canonical model and price kind: the cheapest listing not sold out. Kinds never compete with each other: a
-- serverless GPU-second and an on-demand GPU-hour are different purchases (gpu_cheapest above stays on-demand).
CREATE OR REPLACE VIEW gpu_cheapest_by_kind AS
WITH offered AS (
    SELECT * FROM gpu_listings WHERE gpu_model IS NOT NULL AND stock_status <> 'sold_out'
),
ranked AS (
    SELECT *,
           row_number() OVER (PARTITION BY gpu_model, price_kind
                              ORDER BY usd_per_gpu_hour, provider, listing) AS price_rank,
           count(DISTINCT provider) OVER (PARTITION BY gpu_model, price_kind) AS providers
    FROM offered
)
SELECT gpu_model, price_kind, usd_per_gpu_hour, usd_per_gpu_hour_4dp, usd_per_gpu_second, provider, providers,
       listing, gpu_variant, stock_status, original_amount, original_currency, original_unit,
       billing_increment_seconds, idle_timeout_seconds, cold_start_billed, source_url, fetched_at,
       sha256 AS content_sha256, parser_version
FROM ranked
WHERE price_rank = 1;

-- Who makes an accelerator, by ratecard's canonical model names: "TPU ..." is Google's (the GPU catalog names TPUs
-- as Google's docs title them), Trainium and Inferentia are AWS's (the Neuron docs' chip names), the few other
-- makers AWS instances carry by their own words, and every other model an NVIDIA GPU (the GPU catalog's and the
-- NVIDIA reference's names).
CREATE OR REPLACE MACRO accelerator_vendor(model) AS
    CASE WHEN model IS NULL THEN NULL
         WHEN starts_with(model, 'TPU') THEN 'Google'
         WHEN regexp_matches(model, '^(AWS )?(Trainium|Inferentia)') THEN 'AWS'
         WHEN regexp_matches(model, '(?i)\b(AMD|Radeon|Instinct)\b') THEN 'AMD'
         WHEN regexp_matches(model, '(?i)\b(Habana|Gaudi|Intel)\b') THEN 'Intel'
         WHEN regexp_matches(model, '(?i)\b(Qualcomm|AI ?100)\b') THEN 'Qualcomm'
         WHEN regexp_matches(model, '(?i)\b(Xilinx|VU9P|Alveo)\b') THEN 'Xilinx'
         ELSE 'NVIDIA' END;

-- AWS accelerators and rented GPUs in one comparable unit: USD per accelerator (chip or GPU) per hour.
CREATE OR REPLACE VIEW accelerator_hour_prices AS
SELECT 'AWS' AS vendor,
       'aws' AS source_family,
       accelerator AS accelerator_model,
       instance_type AS offering,
       accelerator_count,
       price_kind,
       region,
       'instance-hour' AS billed_unit,
       usd_per_instance_hour AS usd_per_billed_unit,
       usd_per_accelerator_hour,
       usd_per_accelerator_hour_4dp,
       CAST(NULL AS VARCHAR) AS stock_status,
       source_id, source_url, fetched_at,
       nullif(concat_ws(' ', purchase_option, offering_class), '') AS price_terms,
       sha256 AS content_sha256, parser_version,
       accelerator_vendor(accelerator) AS accelerator_vendor
FROM aws_instance_prices
UNION ALL
SELECT provider,
       'gpu_provider',
       coalesce(gpu_model, gpu_name),
       listing,
       gpu_count,
       price_kind,
       region,
       CASE WHEN price_per = 'instance' THEN 'instance-' WHEN accelerator_vendor(gpu_model) = 'Google' THEN 'chip-'
            ELSE 'GPU-' END || period,
       CASE WHEN original_currency = 'USD' THEN original_amount END,
       usd_per_gpu_hour,
       usd_per_gpu_hour_4dp,
       stock_status,
       source_id, source_url, fetched_at,
       NULL,
       sha256, parser_version,
       accelerator_vendor(gpu_model)
FROM gpu_listings;
