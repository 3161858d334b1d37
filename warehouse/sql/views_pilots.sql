-- Cost per completed work and migration payback (issue 10 point 7). DuckDB divides DECIMALs in DOUBLE, so every
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
       fetched_at AS price_fetched_at, source_url AS price_source_url
FROM aws_instance_prices
UNION ALL
SELECT 'gpu_listing', provider, listing, region, price_kind, usd_per_gpu_hour * gpu_count,
       'USD per listing-hour (' || gpu_count || ' GPU)', fetched_at, source_url
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
                                CAST(p.accepted_outputs AS HUGEINT) * 1000000000000) END AS usd_per_million_accepted
FROM pilot_results AS p
JOIN offering_prices AS o
  ON o.offering_source = p.offering_source AND o.offering = p.offering AND o.price_kind = p.price_kind
 AND o.provider IS NOT DISTINCT FROM p.provider AND o.region IS NOT DISTINCT FROM p.region
WHERE p.quality_passed AND (p.p95_latency_ms IS NULL OR p.p95_latency_ms <= p.latency_target_ms);

CREATE OR REPLACE VIEW migration_payback AS
WITH plans AS (
    SELECT m.*, i.recorded_at, i.recorded_by, i.origin
    FROM migration_plan_history AS m JOIN pilot_inputs AS i USING (input_id)
    QUALIFY row_number() OVER (PARTITION BY m.workload ORDER BY m.input_id DESC) = 1
),
monthly AS (  -- what a month's volume costs on each passed pilot's offering: hours needed x hourly price
    SELECT m.input_id AS plan_id, c.*,
           exact_quotient(CAST(c.usd_per_offering_hour * 1000000000000 AS HUGEINT) * CAST(m.monthly_volume AS HUGEINT),
                          CAST(c.units_per_hour * 1000 AS HUGEINT) * 1000000000) AS monthly_cost_usd
    FROM plans AS m JOIN cost_per_work AS c USING (workload)
),
paired AS (
    SELECT m.*, b.offering AS found_baseline, b.work_unit, b.usd_per_million_units AS baseline_usd_per_million,
           b.monthly_cost_usd AS baseline_monthly_usd,
           c.offering_source AS candidate_source, c.provider AS candidate_provider, c.offering AS candidate_offering,
           c.region AS candidate_region, c.price_kind AS candidate_price_kind,
           c.usd_per_million_units AS candidate_usd_per_million, c.monthly_cost_usd AS candidate_monthly_usd,
           b.conditions AS baseline_conditions, c.conditions AS candidate_conditions,
           b.monthly_cost_usd - c.monthly_cost_usd - m.monthly_maintenance_usd AS net_saving
    FROM plans AS m
    LEFT JOIN monthly AS b
      ON b.plan_id = m.input_id AND b.offering_source = m.baseline_source AND b.offering = m.baseline_offering
     AND b.price_kind = m.baseline_price_kind AND b.provider IS NOT DISTINCT FROM m.baseline_provider
     AND b.region IS NOT DISTINCT FROM m.baseline_region
    LEFT JOIN monthly AS c
      ON c.plan_id = m.input_id AND c.work_unit = b.work_unit
     AND NOT (c.offering_source = b.offering_source AND c.offering = b.offering AND c.price_kind = b.price_kind
              AND c.provider IS NOT DISTINCT FROM b.provider AND c.region IS NOT DISTINCT FROM b.region)
)
SELECT workload, baseline_source, baseline_provider, baseline_offering, baseline_region, baseline_price_kind,
       candidate_source, candidate_provider, candidate_offering, candidate_region, candidate_price_kind,
       work_unit, monthly_volume, baseline_usd_per_million, candidate_usd_per_million,
       baseline_monthly_usd, candidate_monthly_usd,
       baseline_monthly_usd - candidate_monthly_usd AS monthly_operating_saving_usd,
       monthly_maintenance_usd,
       net_saving AS monthly_saving_usd,
       one_time_cost_usd,
       CASE WHEN net_saving > 0 AND baseline_conditions IS NOT DISTINCT FROM candidate_conditions
            THEN exact_quotient(CAST(one_time_cost_usd * 1000000 AS HUGEINT),
                                                    CAST(net_saving * 1000000 AS HUGEINT)) END AS months_to_payback,
       lifetime_months,
       CASE WHEN found_baseline IS NULL THEN 'no passed pilot of the baseline at a current price'
            WHEN candidate_offering IS NULL THEN 'no passed pilot of another offering'
            WHEN baseline_conditions IS DISTINCT FROM candidate_conditions
                THEN 'not comparable: the baseline ran at ' || baseline_conditions || '; the candidate at '
                     || candidate_conditions
            WHEN net_saving <= 0 THEN 'keep the GPU deployment'
            WHEN exact_quotient(CAST(one_time_cost_usd * 1000000 AS HUGEINT),
                                CAST(net_saving * 1000000 AS HUGEINT)) > lifetime_months
                THEN 'keep the GPU deployment'
            ELSE 'migrate' END AS verdict,
       input_id AS plan_input_id, recorded_at AS plan_recorded_at, recorded_by AS plan_recorded_by,
       origin AS plan_origin, note AS plan_note,
       baseline_conditions, candidate_conditions,
       baseline_conditions IS NOT DISTINCT FROM candidate_conditions AS comparable
FROM paired;
