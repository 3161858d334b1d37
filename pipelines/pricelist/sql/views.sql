-- Public price-list views: add columns freely, rename none.

-- The product pages' on-demand price (no region printed) beside the price list's on-demand price for the same
-- type: one 'agrees' row per region whose price is exactly the page's; one 'no matching region' row when the
-- price list prices the type but no region at the page's figure; 'not in price list' when it does not price it.
CREATE OR REPLACE VIEW aws_price_reconciliation AS
WITH page AS (
    SELECT source_id, instance_type, usd_per_instance_hour, source_url, fetched_at, sha256, parser_version
    FROM aws_instance_prices WHERE source_family = 'product_page' AND price_kind = 'on_demand'
),
listed AS (
    SELECT source_id, instance_type, region_code, region AS location, usd_per_instance_hour, source_url, fetched_at,
           offer_version, sha256, parser_version
    FROM aws_instance_prices WHERE source_family = 'price_list' AND price_kind = 'on_demand'
),
summary AS (
    SELECT p.source_id, p.instance_type,
           count(l.region_code) AS price_list_regions,
           count(l.region_code) FILTER (WHERE l.usd_per_instance_hour = p.usd_per_instance_hour) AS agreeing_regions,
           min(l.usd_per_instance_hour) AS price_list_min_usd_per_instance_hour,
           max(l.usd_per_instance_hour) AS price_list_max_usd_per_instance_hour
    FROM page AS p LEFT JOIN listed AS l ON l.instance_type = p.instance_type
    GROUP BY p.source_id, p.instance_type
)
SELECT p.instance_type,
       CASE WHEN s.agreeing_regions > 0 THEN 'agrees'
            WHEN s.price_list_regions > 0 THEN 'no matching region'
            ELSE 'not in price list' END AS status,
       l.region_code,
       l.location,
       p.usd_per_instance_hour AS page_usd_per_instance_hour,
       l.usd_per_instance_hour AS price_list_usd_per_instance_hour,
       s.price_list_regions,
       s.agreeing_regions,
       s.price_list_min_usd_per_instance_hour,
       s.price_list_max_usd_per_instance_hour,
       p.source_id AS page_source_id,
       p.source_url AS page_source_url,
       p.fetched_at AS page_fetched_at,
       l.source_id AS price_list_source_id,
       l.source_url AS price_list_source_url,
       l.fetched_at AS price_list_fetched_at,
       l.offer_version,
       p.sha256 AS page_content_sha256,
       p.parser_version AS page_parser_version,
       l.sha256 AS price_list_content_sha256,
       l.parser_version AS price_list_parser_version
FROM page AS p
JOIN summary AS s ON s.source_id = p.source_id AND s.instance_type = p.instance_type
LEFT JOIN listed AS l
       ON l.instance_type = p.instance_type AND l.usd_per_instance_hour = p.usd_per_instance_hour;

-- The type catalog that comes from the price list: each accelerator type's figures as the newest regional offer
-- file gives them, one row per type and region, with the curated correction (and its reason) where there is one.
CREATE OR REPLACE VIEW aws_instance_types AS
SELECT instance_type, family, region_code, accelerator, accelerator_count, accelerator_share,
       accelerator_count_basis, price_list_gpu, price_list_gpu_memory, accelerator_memory_value,
       accelerator_memory_unit, accelerator_memory_gib, accelerator_memory_basis, curated_why, offer_version,
       publication_date, valid_from, source_id, source_url, fetched_at, sha256, parser_version,
       sha256 AS content_sha256  -- the name every price view gives the body's hash (sha256 stays for old readers)
FROM aws_pricelist_type_history
WHERE valid_to IS NULL;

-- One row per instance type x region x price kind (and reserved terms), with the type's cheapest region for
-- that kind and how many regions price it. Prices are the effective USD per instance-hour, excluding tax.
CREATE OR REPLACE VIEW aws_prices_by_region AS
WITH listed AS (
    SELECT * FROM aws_instance_prices WHERE source_family = 'price_list'
),
ranked AS (
    SELECT *,
           count(*) OVER (PARTITION BY instance_type, price_kind, lease_years, purchase_option, offering_class)
               AS region_count,
           first_value(region_code) OVER (
               PARTITION BY instance_type, price_kind, lease_years, purchase_option, offering_class
               ORDER BY usd_per_instance_hour, region_code) AS cheapest_region_code,
           min(usd_per_instance_hour) OVER (
               PARTITION BY instance_type, price_kind, lease_years, purchase_option, offering_class)
               AS cheapest_usd_per_instance_hour,
           rank() OVER (
               PARTITION BY instance_type, price_kind, lease_years, purchase_option, offering_class
               ORDER BY usd_per_instance_hour) AS price_rank
    FROM listed
)
SELECT r.instance_type, r.family, r.accelerator, r.accelerator_count, r.price_kind, r.lease_years,
       r.purchase_option, r.offering_class, r.indicative, r.region_code, r.region AS location,
       r.usd_per_instance_hour, r.hourly_usd, r.upfront_usd, r.usd_per_accelerator_hour,
       r.usd_per_accelerator_hour_4dp, r.price_rank, r.region_count, r.cheapest_region_code,
       r.cheapest_usd_per_instance_hour, r.usd_per_instance_hour = r.cheapest_usd_per_instance_hour AS is_cheapest,
       r.source_id, r.source_url, r.fetched_at, r.offer_version, r.publication_date,
       r.sha256 AS content_sha256, r.parser_version, t.accelerator_share
FROM ranked AS r
LEFT JOIN aws_instance_types AS t ON t.instance_type = r.instance_type AND t.region_code = r.region_code;
