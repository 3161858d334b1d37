-- Cost per completed work and migration payback. DuckDB divides DECIMALs in DOUBLE, so every
-- quotient here goes through exact_quotient: whole numbers in HUGEINT, rounded half-up to 6 decimal places.

CREATE OR REPLACE MACRO exact_quotient(n, d) AS
    CAST((2 * CAST(n AS HUGEINT) * 1000000 + CAST(d AS HUGEINT)) // (2 * CAST(d AS HUGEINT)) AS DECIMAL(38, 0))
    * CAST(0.000001 AS DECIMAL(7, 6));

-- A pilot's conditions in words: pilots of one workload compare only when these are equal.
CREATE OR REPLACE MACRO pilot_conditions(latency_target_ms, input_units, output_units, concurrency) AS
    'latency target ' || coalesce(CAST(latency_target_ms AS VARCHAR) || ' ms', 'not stated')
    || ', input ' || coalesce(CAST(input_units AS VARCHAR), 'not stated')
    || ', output ' || coalesce(CAST(output_units AS VARCHAR), 'not stated')
    || ', concurrency ' || coalesce(CAST(concurrency AS VARCHAR), 'not stated');

-- Every offering a pilot can name, at its current price for the whole thing rented (instance or listing).
CREATE OR REPLACE VIEW offering_prices AS
SELECT 'aws_instance' AS offering_source, CAST(NULL AS VARCHAR) AS provider, instance_type AS offering, region,
       price_kind, usd_per_instance_hour AS usd_per_offering_hour, 'USD per instance-hour' AS price_unit,
       fetched_at AS price_fetched_at, source_url AS price_source_url,
       sha256 AS price_content_sha256, parser_version AS price_parser_version
FROM aws_instance_prices
UNION ALL
SELECT 'gpu_listing', provider, listing, region, price_kind, usd_per_gpu_hour * gpu_count,
       'USD per listing-hour (' || gpu_count || ' GPU)', fetched_at, source_url, sha256, parser_version
FROM gpu_listings;

-- The current pilot per workload and offering: the latest input wins, earlier ones stay in the history.
CREATE OR REPLACE VIEW pilot_results AS
SELECT r.*, i.recorded_at, i.recorded_by, i.origin, i.content_sha256
FROM pilot_result_history AS r
JOIN pilot_inputs AS i USING (input_id)
QUALIFY row_number() OVER (
    PARTITION BY r.workload, r.offering_source, r.provider, r.offering, r.region, r.price_kind
    ORDER BY r.input_id DESC, r.row_number DESC) = 1;

-- Every current pilot, whether it is priced as a candidate, and why not: a failed quality check, a p95 above its
-- own latency target, or no current price for its offering.
CREATE OR REPLACE VIEW pilot_standing AS
SELECT p.workload, p.offering_source, p.provider, p.offering, p.region, p.price_kind, p.work_unit,
       p.units_per_hour, p.quality_passed, p.latency_target_ms, p.p95_latency_ms,
       p.p95_latency_ms IS NULL OR p.p95_latency_ms <= p.latency_target_ms AS latency_met,
       pilot_conditions(p.latency_target_ms, p.input_units, p.output_units, p.concurrency) AS conditions,
       o.usd_per_offering_hour IS NOT NULL AND p.quality_passed
           AND (p.p95_latency_ms IS NULL OR p.p95_latency_ms <= p.latency_target_ms) AS priced,
       CASE WHEN NOT p.quality_passed THEN 'quality target missed'
            WHEN p.p95_latency_ms > p.latency_target_ms
                THEN 'p95 latency ' || p.p95_latency_ms || ' ms is above its target of ' || p.latency_target_ms || ' ms'
            WHEN o.usd_per_offering_hour IS NULL THEN 'no current price for this offering'
       END AS not_priced_because,
       p.measured_on, p.input_id, p.origin, p.recorded_at
FROM pilot_results AS p
LEFT JOIN offering_prices AS o
  ON o.offering_source = p.offering_source AND o.offering = p.offering AND o.price_kind = p.price_kind
 AND o.provider IS NOT DISTINCT FROM p.provider AND o.region IS NOT DISTINCT FROM p.region;

CREATE OR REPLACE VIEW cost_per_work AS
SELECT p.workload, p.offering_source, p.provider, p.offering, p.region, p.price_kind, p.work_unit,
       p.units_per_hour, o.usd_per_offering_hour, o.price_unit, o.price_fetched_at,
       exact_quotient(CAST(o.usd_per_offering_hour * 1000000000000 AS HUGEINT),
                      CAST(p.units_per_hour * 1000 AS HUGEINT) * 1000) AS usd_per_million_units,
       p.measured_on, p.note, o.price_source_url, p.input_id, p.origin, p.recorded_by, p.recorded_at,
       p.content_sha256,
       p.latency_target_ms, p.p95_latency_ms, p.input_units, p.output_units, p.concurrency,
       pilot_conditions(p.latency_target_ms, p.input_units, p.output_units, p.concurrency) AS conditions,
       p.billed_hours, p.busy_hours, p.accepted_outputs,
       CASE WHEN p.busy_hours IS NOT NULL THEN exact_quotient(CAST(p.busy_hours * 1000000 AS HUGEINT),
                                                             CAST(p.billed_hours * 1000000 AS HUGEINT)) END
           AS pilot_utilisation,
       -- Billed hours x price / accepted outputs: the window's idle hours are paid for too.
       CASE WHEN p.accepted_outputs > 0
            THEN exact_quotient(CAST(p.billed_hours * 1000000 AS HUGEINT)
                                * CAST(o.usd_per_offering_hour * 1000000000000 AS HUGEINT),
                                CAST(p.accepted_outputs AS HUGEINT) * 1000000000000) END AS usd_per_million_accepted,
       o.price_content_sha256, o.price_parser_version
FROM pilot_results AS p
JOIN offering_prices AS o
  ON o.offering_source = p.offering_source AND o.offering = p.offering AND o.price_kind = p.price_kind
 AND o.provider IS NOT DISTINCT FROM p.provider AND o.region IS NOT DISTINCT FROM p.region
WHERE p.quality_passed AND (p.p95_latency_ms IS NULL OR p.p95_latency_ms <= p.latency_target_ms);
