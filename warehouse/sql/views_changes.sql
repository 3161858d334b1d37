-- The change feed: what moved between consecutive versions of the history tables, and source shape changes.
-- Public contract like the other views: add columns freely, rename none.

-- (new - old) / old x 100 exactly, rounded half away from zero to 2 decimals: DuckDB divides DECIMALs in DOUBLE,
-- so the prices go through their unscaled integers (DECIMAL(38, 18) x 10^18, whole and fraction apart, each exact).
CREATE OR REPLACE MACRO unscaled_18(x) AS
    CAST(trunc(x) AS HUGEINT) * 1000000000000000000 + CAST((x - trunc(x)) * 1000000000000000000 AS HUGEINT);
CREATE OR REPLACE MACRO percent_change(old, new) AS
    CASE WHEN old > 0 THEN
        CAST(sign(unscaled_18(new) - unscaled_18(old))
             * ((2 * abs(unscaled_18(new) - unscaled_18(old)) * 10000 + unscaled_18(old)) // (2 * unscaled_18(old)))
             AS DECIMAL(38, 0)) * CAST(0.01 AS DECIMAL(3, 2))
    END;

-- Every version of every AWS price and GPU listing is compared with the one before and after it of the same key.
CREATE OR REPLACE VIEW price_changes AS
WITH versions AS (
    SELECT 'aws' AS family, source_id, 'AWS' AS provider, instance_type AS offering,
           CAST(NULL AS VARCHAR) AS model, price_kind, region,
           usd_per_accelerator_hour AS usd_per_accelerator_hour, CAST(NULL AS VARCHAR) AS stock_status,
           valid_from, valid_to, fetch_id, source_url
    FROM aws_instance_price_history
    UNION ALL
    SELECT 'gpu', source_id, provider, listing, coalesce(gpu_model, gpu_name), price_kind, region,
           usd_per_gpu_hour, stock_status, valid_from, valid_to, fetch_id, source_url
    FROM gpu_listing_history
    UNION ALL
    -- Price-list rows: a reserved offer's or Savings Plan's term, payment (and class) are part of its kind (its key).
    SELECT 'aws_pricelist', source_id, 'AWS', instance_type, NULL,
           price_kind || CASE WHEN lease_years IS NOT NULL
                              THEN '_' || lease_years || 'y ' || concat_ws(' ', lower(purchase_option), offering_class)
                              ELSE '' END,
           region_code, usd_per_accelerator_hour, NULL, valid_from, valid_to, fetch_id, source_url
    FROM aws_pricelist_price_history
),
price_versions AS (
    SELECT *,
           lag(valid_to) OVER w AS prev_valid_to,
           lag(usd_per_accelerator_hour) OVER w AS prev_usd_per_accelerator_hour,
           lag(stock_status) OVER w AS prev_stock_status,
           lead(valid_from) OVER w AS next_valid_from,
           -- A price-list source lands region by region: a region's first landing is not news either.
           min(valid_from) OVER (PARTITION BY family, source_id, CASE WHEN family = 'aws_pricelist' THEN region END)
               AS source_first_landed_at
    FROM versions
    WINDOW w AS (PARTITION BY family, source_id, offering, price_kind, region ORDER BY valid_from)
),
price_moves AS (
    SELECT valid_from AS changed_at, 'price' AS change, *,
           prev_usd_per_accelerator_hour AS old_usd, usd_per_accelerator_hour AS new_usd,
           CAST(NULL AS VARCHAR) AS old_value, CAST(NULL AS VARCHAR) AS new_value
    FROM price_versions
    WHERE prev_valid_to = valid_from AND prev_usd_per_accelerator_hour <> usd_per_accelerator_hour
),
stock_flips AS (
    SELECT valid_from AS changed_at, 'stock' AS change, *,
           prev_usd_per_accelerator_hour AS old_usd, usd_per_accelerator_hour AS new_usd,
           prev_stock_status AS old_value, stock_status AS new_value
    FROM price_versions
    WHERE prev_valid_to = valid_from AND prev_stock_status IS DISTINCT FROM stock_status
),
-- A key first seen after its source's first landing (the first landing itself is not news).
added AS (
    SELECT valid_from AS changed_at, 'added' AS change, *,
           CAST(NULL AS DECIMAL(38, 18)) AS old_usd, usd_per_accelerator_hour AS new_usd,
           CAST(NULL AS VARCHAR) AS old_value, stock_status AS new_value
    FROM price_versions
    WHERE (prev_valid_to IS NULL OR prev_valid_to < valid_from) AND valid_from > source_first_landed_at
),
removed AS (
    SELECT valid_to AS changed_at, 'removed' AS change, *,
           usd_per_accelerator_hour AS old_usd, CAST(NULL AS DECIMAL(38, 18)) AS new_usd,
           stock_status AS old_value, CAST(NULL AS VARCHAR) AS new_value
    FROM price_versions
    WHERE valid_to IS NOT NULL AND next_valid_from IS DISTINCT FROM valid_to
),
moves AS (
    SELECT * FROM price_moves UNION ALL BY NAME SELECT * FROM stock_flips
    UNION ALL BY NAME SELECT * FROM added UNION ALL BY NAME SELECT * FROM removed
),
landed AS (
    SELECT source_id, fetch_id, fetched_at, url, shape_fingerprint,
           lag(shape_fingerprint) OVER (PARTITION BY source_id ORDER BY fetch_id) AS prev_fingerprint
    FROM fetch_log
    WHERE outcome IN ('landed', 'unchanged') AND shape_fingerprint IS NOT NULL
)
SELECT m.changed_at,
       m.change,
       m.family,
       m.source_id,
       m.provider,
       m.offering,
       m.model,
       m.price_kind,
       m.region,
       m.old_usd AS old_usd_per_accelerator_hour,
       m.new_usd AS new_usd_per_accelerator_hour,
       -- Only where the price moved: a stock flip at an unchanged price has no percentage.
       CASE WHEN m.new_usd <> m.old_usd
            THEN CAST(percent_change(m.old_usd, m.new_usd) AS DECIMAL(18, 2)) END AS change_pct,
       m.old_value,
       m.new_value,
       -- A removal is brought by the fetch that closed the version, which landed at valid_to.
       CASE WHEN m.change = 'removed'
            THEN (SELECT max(f.fetch_id) FROM fetch_log f
                  WHERE f.source_id = m.source_id AND f.fetched_at = m.valid_to AND f.outcome = 'landed')
            ELSE m.fetch_id END AS fetch_id,
       m.source_url
FROM moves AS m
UNION ALL
SELECT fetched_at, 'shape', 'source', source_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       prev_fingerprint, shape_fingerprint, fetch_id, url
FROM landed
WHERE prev_fingerprint IS DISTINCT FROM shape_fingerprint AND prev_fingerprint IS NOT NULL;
