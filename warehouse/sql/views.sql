-- Public contract for SQL clients and dashboards: add columns freely, rename none.

-- The prices as they stood at `ts`: the price version open at ts joined to the spec version open at ts.
CREATE OR REPLACE MACRO aws_instance_prices_as_of(ts) AS TABLE
SELECT
    p.instance_type,
    s.family,
    s.accelerator,
    p.accelerator_count,
    s.accelerator_memory_value,
    s.accelerator_memory_unit,
    s.accelerator_memory_gib,
    s.accelerator_memory_derived,
    s.accelerator_memory_basis,
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
        AND f.fetched_at <= CAST(ts AS TIMESTAMPTZ)) AS last_confirmed_at
FROM aws_instance_price_history AS p
LEFT JOIN aws_instance_spec_history AS s
       ON s.source_id = p.source_id
      AND s.instance_type = p.instance_type
      AND s.valid_from <= CAST(ts AS TIMESTAMPTZ)
      AND (s.valid_to IS NULL OR s.valid_to > CAST(ts AS TIMESTAMPTZ))
WHERE p.valid_from <= CAST(ts AS TIMESTAMPTZ)
  AND (p.valid_to IS NULL OR p.valid_to > CAST(ts AS TIMESTAMPTZ));

-- Current rows: the open versions ('infinity' is after every valid_from and before no valid_to).
CREATE OR REPLACE VIEW aws_instance_prices AS
SELECT * FROM aws_instance_prices_as_of('infinity');

CREATE OR REPLACE VIEW aws_instance_specs AS
SELECT source_id, instance_type, family, accelerator, accelerator_count, accelerator_memory_value,
       accelerator_memory_unit, accelerator_memory_gib, accelerator_memory_derived, accelerator_memory_basis,
       vcpus, host_memory_gib, source_url, fetched_at, sha256, parser_version, fetch_id, valid_from
FROM aws_instance_spec_history
WHERE valid_to IS NULL;

-- Latest outcome per source: what a dashboard shows as freshness.
CREATE OR REPLACE VIEW source_freshness AS
SELECT source_id,
       max(fetched_at) AS last_attempt_at,
       max(fetched_at) FILTER (WHERE outcome IN ('landed', 'unchanged')) AS last_good_at,
       arg_max(outcome, fetch_id) AS last_outcome,
       arg_max(error, fetch_id) AS last_error
FROM fetch_log
GROUP BY source_id;
