-- Where an accelerator can be had: per model, provider, region and price kind family, whether it is listed now,
-- its cheapest current price, and when it was first and last seen in the history.
-- Public view (`ratecard where` reads it): add columns freely, rename none. It reads accelerator_offers, so its file
-- name sorts after views_accelerator_offers.sql (a phase's files run by name).

CREATE OR REPLACE VIEW accelerator_availability AS
WITH aws_variants AS (  -- the form factor accelerator_offers gives each AWS accelerator it lists now
    SELECT DISTINCT accelerator_model AS aws_accelerator, accelerator_variant AS variant
    FROM accelerator_offers WHERE provider = 'AWS' AND accelerator_model IS NOT NULL
),
-- Every version ever landed, in accelerator_offers' terms: the product and Capacity Blocks pages' prices (their
-- accelerator from the spec version open when the price landed), the price list's, and the GPU listings'.
versions AS (
    SELECT 'AWS' AS provider, s.accelerator AS accelerator_model, CAST(NULL AS VARCHAR) AS gpu_variant, p.price_kind,
           CASE WHEN p.region_stated THEN p.region END AS region, p.region_code,
           p.source_id, p.source_url, p.fetched_at, p.valid_from, p.valid_to, p.sha256, p.parser_version
    FROM aws_instance_price_history AS p
    LEFT JOIN aws_instance_spec_history AS s
           ON s.source_id = p.source_id AND s.instance_type = p.instance_type
          AND s.valid_from <= p.valid_from AND (s.valid_to IS NULL OR s.valid_to > p.valid_from)
    UNION ALL
    SELECT 'AWS', accelerator, NULL, price_kind, coalesce(location, region_code), region_code,
           source_id, source_url, fetched_at, valid_from, valid_to, sha256, parser_version
    FROM aws_pricelist_price_history
    UNION ALL
    SELECT provider, gpu_model, gpu_variant, price_kind, region, NULL, source_id, source_url, fetched_at, valid_from,
           valid_to, sha256, parser_version
    FROM gpu_listing_history
),
-- The fetches that saw their source's rows: a version was seen by each of them from its valid_from until its valid_to.
confirming AS (
    SELECT source_id, fetched_at FROM fetch_log WHERE outcome IN ('landed', 'unchanged')
),
seen AS (
    SELECT v.*,
           greatest(v.fetched_at, coalesce(f.fetched_at, v.fetched_at)) AS last_seen_at,
           coalesce(v.region_code, v.region) AS place
    FROM (SELECT *, coalesce(valid_to, 'infinity'::TIMESTAMPTZ) AS seen_before FROM versions) AS v
    ASOF LEFT JOIN confirming AS f ON f.source_id = v.source_id AND v.seen_before > f.fetched_at
    WHERE v.accelerator_model IS NOT NULL
),
current AS (
    SELECT *, coalesce(region_code, region) AS place FROM accelerator_offers WHERE accelerator_model IS NOT NULL
),
-- A region code's name as any AWS source states it (a spot price names only its code).
region_names AS (
    SELECT region_code, min(region) AS region_name
    FROM (SELECT region_code, region FROM seen UNION ALL SELECT region_code, region FROM current)
    WHERE region_code IS NOT NULL AND region IS DISTINCT FROM region_code
    GROUP BY region_code
),
keyed AS (
    SELECT false AS is_current, v.accelerator_model, coalesce(v.gpu_variant, a.variant) AS accelerator_variant, v.provider, v.place,
           v.region_code, price_kind_family(v.price_kind) AS price_kind_family,
           CAST(NULL AS DECIMAL(38, 18)) AS usd_per_accelerator_hour, NULL AS offering, NULL AS price_kind,
           v.valid_from, v.last_seen_at, v.source_id, v.source_url, v.fetched_at, v.sha256 AS content_sha256,
           v.parser_version
    FROM seen AS v
    LEFT JOIN aws_variants AS a ON v.provider = 'AWS' AND a.aws_accelerator = v.accelerator_model
    UNION ALL BY NAME
    SELECT true AS is_current, accelerator_model, accelerator_variant, provider, place, region_code, price_kind_family,
           usd_per_accelerator_hour, offering, price_kind, NULL AS valid_from, NULL AS last_seen_at,
           source_id, source_url, fetched_at, content_sha256, parser_version
    FROM current
),
grouped AS (
    SELECT accelerator_model, accelerator_variant, provider, place, any_value(region_code) AS region_code,
           price_kind_family,
           bool_or(is_current) AS listed_now,
           count(*) FILTER (WHERE is_current) AS offers_now,
           min(usd_per_accelerator_hour) FILTER (WHERE is_current) AS cheapest_usd_per_accelerator_hour,
           -- The cheapest current offer's own row (ties by name, so the answer is the same every time); the last
           -- version seen when none is listed now.
           arg_min({'offering': offering, 'price_kind': price_kind, 'source_id': source_id,
                    'source_url': source_url, 'fetched_at': fetched_at, 'content_sha256': content_sha256,
                    'parser_version': parser_version},
                   (usd_per_accelerator_hour, offering, price_kind, source_id)) FILTER (WHERE is_current) AS cheapest,
           arg_max({'source_id': source_id, 'source_url': source_url, 'fetched_at': fetched_at,
                    'content_sha256': content_sha256, 'parser_version': parser_version},
                   (last_seen_at, source_id)) FILTER (WHERE NOT is_current) AS last,
           min(valid_from) FILTER (WHERE NOT is_current) AS first_seen_at,
           max(last_seen_at) FILTER (WHERE NOT is_current) AS last_seen_at
    FROM keyed
    GROUP BY accelerator_model, accelerator_variant, provider, place, price_kind_family
)
SELECT g.accelerator_model, g.accelerator_variant, g.provider,
       CASE WHEN g.region_code IS NOT NULL THEN coalesce(n.region_name, g.region_code) ELSE g.place END AS region,
       g.region_code, g.price_kind_family, g.listed_now, g.offers_now,
       g.cheapest_usd_per_accelerator_hour, g.cheapest.offering AS cheapest_offering,
       g.cheapest.price_kind AS cheapest_price_kind,
       g.first_seen_at, g.last_seen_at,
       coalesce(g.cheapest.source_id, g.last.source_id) AS source_id,
       coalesce(g.cheapest.source_url, g.last.source_url) AS source_url,
       coalesce(g.cheapest.fetched_at, g.last.fetched_at) AS fetched_at,
       coalesce(g.cheapest.content_sha256, g.last.content_sha256) AS content_sha256,
       coalesce(g.cheapest.parser_version, g.last.parser_version) AS parser_version
FROM grouped AS g
LEFT JOIN region_names AS n USING (region_code);
