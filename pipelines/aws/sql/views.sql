-- Public contract for SQL clients and dashboards: add columns freely, rename none.

-- The prices as they stood at `ts`: the price version open at ts joined to the spec version open at ts, then the
-- price-list prices open at ts (their specs travel with each price). source_family says which kind of source.
CREATE OR REPLACE MACRO aws_instance_prices_as_of(ts) AS TABLE
SELECT
    p.instance_type,
    s.family,
    s.accelerator,
    p.accelerator_count,
    -- Accelerator memory is the hardware's: a page that prices a type but states no memory for it (the Capacity
    -- Blocks tables) takes the figure another AWS page states for the same type at ts, saying which (basis).
    coalesce(s.accelerator_memory_value, other.o.accelerator_memory_value) AS accelerator_memory_value,
    coalesce(s.accelerator_memory_unit, other.o.accelerator_memory_unit) AS accelerator_memory_unit,
    coalesce(s.accelerator_memory_gib, other.o.accelerator_memory_gib) AS accelerator_memory_gib,
    coalesce(s.accelerator_memory_derived, false) OR (s.accelerator_memory_value IS NULL
        AND coalesce(other.o.accelerator_memory_derived, false)) AS accelerator_memory_derived,
    CASE WHEN s.accelerator_memory_value IS NULL AND other.o.accelerator_memory_value IS NOT NULL
         THEN 'stated by ' || other.o.source_id || coalesce(' (' || other.o.accelerator_memory_basis || ')', '')
              || ': this page states none'
         ELSE s.accelerator_memory_basis END AS accelerator_memory_basis,
    s.vcpus,
    s.host_memory_gib,
    p.price_kind,
    p.region,
    p.region_stated,
    p.usd_per_instance_hour,
    'USD per instance-hour' AS instance_price_unit,
    p.usd_per_accelerator_hour,
    p.usd_per_accelerator_hour_4dp,
    'USD per accelerator-hour (derived)' AS accelerator_price_unit,
    p.printed_usd_per_accelerator_hour,
    p.source_id,
    p.source_url,
    p.fetched_at,
    p.sha256,
    p.parser_version,
    p.fetch_id,
    p.valid_from,
    p.valid_to,
    (SELECT max(f.fetched_at) FROM fetch_log f
      WHERE f.source_id = p.source_id AND f.outcome IN ('landed', 'unchanged')
        AND f.fetched_at <= CAST(ts AS TIMESTAMPTZ)) AS last_confirmed_at,
    p.region_code,
    CASE WHEN p.price_kind = 'capacity_block' THEN 'capacity_blocks_page' ELSE 'product_page' END AS source_family,
    CAST(NULL AS INTEGER) AS lease_years,
    CAST(NULL AS VARCHAR) AS purchase_option,
    CAST(NULL AS VARCHAR) AS offering_class,
    CAST(NULL AS DECIMAL(24, 10)) AS hourly_usd,
    CAST(NULL AS DECIMAL(24, 10)) AS upfront_usd,
    false AS indicative,
    CAST(NULL AS VARCHAR) AS offer_version,
    CAST(NULL AS TIMESTAMPTZ) AS publication_date,
    p.sha256 AS content_sha256,  -- the name every price view gives the body's hash (sha256 stays for old readers)
    (SELECT c.capture_id FROM capture_log AS c WHERE c.fetch_id = p.fetch_id) AS backfilled_from
FROM aws_instance_price_history AS p
LEFT JOIN aws_instance_spec_history AS s
       ON s.source_id = p.source_id
      AND s.instance_type = p.instance_type
      AND s.valid_from <= CAST(ts AS TIMESTAMPTZ)
      AND (s.valid_to IS NULL OR s.valid_to > CAST(ts AS TIMESTAMPTZ))
LEFT JOIN (  -- one other source's memory per type: a product page's first, then the price list's, by source id
    SELECT instance_type,
           arg_min({'source_id': source_id, 'accelerator_memory_value': accelerator_memory_value,
                    'accelerator_memory_unit': accelerator_memory_unit,
                    'accelerator_memory_gib': accelerator_memory_gib,
                    'accelerator_memory_derived': accelerator_memory_derived,
                    'accelerator_memory_basis': accelerator_memory_basis}, (rank, source_id)) AS o
    FROM (
        SELECT 1 AS rank, source_id, instance_type, accelerator_memory_value, accelerator_memory_unit,
               accelerator_memory_gib, accelerator_memory_derived, accelerator_memory_basis
        FROM aws_instance_spec_history
        WHERE accelerator_memory_value IS NOT NULL AND valid_from <= CAST(ts AS TIMESTAMPTZ)
          AND (valid_to IS NULL OR valid_to > CAST(ts AS TIMESTAMPTZ))
        UNION ALL
        SELECT 2, source_id, instance_type, accelerator_memory_value, accelerator_memory_unit,
               accelerator_memory_gib, accelerator_memory_basis = 'catalog', accelerator_memory_basis
        FROM aws_pricelist_type_history
        WHERE accelerator_memory_value IS NOT NULL AND valid_from <= CAST(ts AS TIMESTAMPTZ)
          AND (valid_to IS NULL OR valid_to > CAST(ts AS TIMESTAMPTZ))
    )
    GROUP BY instance_type
) AS other ON other.instance_type = p.instance_type
WHERE p.valid_from <= CAST(ts AS TIMESTAMPTZ)
  AND (p.valid_to IS NULL OR p.valid_to > CAST(ts AS TIMESTAMPTZ))
UNION ALL BY NAME
SELECT
    l.instance_type,
    l.family,
    l.accelerator,
    l.accelerator_count,
    l.accelerator_memory_value,
    l.accelerator_memory_unit,
    l.accelerator_memory_gib,
    coalesce(l.accelerator_memory_basis = 'catalog', false) AS accelerator_memory_derived,
    CASE WHEN l.accelerator_memory_basis = 'catalog' THEN 'ratecard instance catalog' END AS accelerator_memory_basis,
    CAST(NULL AS INTEGER) AS vcpus,
    CAST(NULL AS DECIMAL(18, 6)) AS host_memory_gib,
    -- A term is part of the kind (reserved_1y, compute_savings_plan_3y); on-demand and spot have none.
    CASE WHEN l.lease_years IS NOT NULL THEN l.price_kind || '_' || l.lease_years || 'y' ELSE l.price_kind END AS price_kind,
    coalesce(l.location, l.region_code) AS region,
    true AS region_stated,
    l.effective_usd_per_instance_hour AS usd_per_instance_hour,
    'USD per instance-hour' AS instance_price_unit,
    l.usd_per_accelerator_hour,
    l.usd_per_accelerator_hour_4dp,
    'USD per accelerator-hour (derived)' AS accelerator_price_unit,
    CAST(NULL AS DECIMAL(18, 6)) AS printed_usd_per_accelerator_hour,
    l.source_id,
    l.source_url,
    l.fetched_at,
    l.sha256,
    l.parser_version,
    l.fetch_id,
    l.valid_from,
    l.valid_to,
    (SELECT max(f.fetched_at) FROM fetch_log f
      WHERE f.source_id = l.source_id AND f.outcome IN ('landed', 'unchanged')
        AND f.fetched_at <= CAST(ts AS TIMESTAMPTZ)) AS last_confirmed_at,
    l.region_code,
    'price_list' AS source_family,
    l.lease_years,
    l.purchase_option,
    l.offering_class,
    l.hourly_usd,
    l.upfront_usd,
    l.indicative,
    l.offer_version,
    l.publication_date,
    l.sha256 AS content_sha256,
    CAST(NULL AS VARCHAR) AS backfilled_from  -- a price list's past versions come from AWS itself
FROM aws_pricelist_price_history AS l
WHERE l.valid_from <= CAST(ts AS TIMESTAMPTZ)
  AND (l.valid_to IS NULL OR l.valid_to > CAST(ts AS TIMESTAMPTZ));

-- Current rows: the open versions ('infinity' is after every valid_from and before no valid_to).
CREATE OR REPLACE VIEW aws_instance_prices AS
SELECT * FROM aws_instance_prices_as_of('infinity');

CREATE OR REPLACE VIEW aws_instance_specs AS
SELECT source_id, instance_type, family, accelerator, accelerator_count, accelerator_memory_value,
       accelerator_memory_unit, accelerator_memory_gib, accelerator_memory_derived, accelerator_memory_basis,
       vcpus, host_memory_gib, source_url, fetched_at, sha256, parser_version, fetch_id, valid_from
FROM aws_instance_spec_history
WHERE valid_to IS NULL;

