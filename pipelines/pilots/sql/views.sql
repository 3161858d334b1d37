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
       price_kind, purchase_option, offering_class,
       usd_per_instance_hour AS usd_per_offering_hour, 'USD per instance-hour' AS price_unit,
       fetched_at AS price_fetched_at, source_url AS price_source_url,
       sha256 AS price_content_sha256, parser_version AS price_parser_version
FROM aws_instance_prices
UNION ALL
SELECT 'gpu_listing', provider, listing, region, price_kind, NULL, NULL, usd_per_gpu_hour * gpu_count,
       'USD per listing-hour (' || gpu_count || ' GPU)', fetched_at, source_url, sha256, parser_version
FROM gpu_listings;

-- The current pilot per workload and offering: the latest input wins, earlier ones stay in the history.
CREATE OR REPLACE VIEW pilot_results AS
SELECT r.*, i.recorded_at, i.recorded_by, i.origin, i.content_sha256
FROM pilot_result_history AS r
JOIN pilot_inputs AS i USING (input_id)
QUALIFY row_number() OVER (
    PARTITION BY r.workload, r.offering_source, r.provider, r.offering, r.region, r.price_kind, r.purchase_option,
                 r.offering_class
    ORDER BY r.input_id DESC, r.row_number DESC) = 1;

-- Every current pilot, whether it is priced as a candidate, and why not: a failed quality check, a p95 above its
-- own latency target, or no current price for its offering.
CREATE OR REPLACE VIEW pilot_standing AS
SELECT p.workload, p.offering_source, p.provider, p.offering, p.region, p.price_kind, p.purchase_option,
       p.offering_class, p.work_unit, p.units_per_hour, p.quality_passed, p.latency_target_ms, p.p95_latency_ms,
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
 AND o.provider IS NOT DISTINCT FROM p.provider AND o.region IS NOT DISTINCT FROM p.region
 AND o.purchase_option IS NOT DISTINCT FROM p.purchase_option AND o.offering_class IS NOT DISTINCT FROM p.offering_class;

CREATE OR REPLACE VIEW cost_per_work AS
SELECT p.workload, p.offering_source, p.provider, p.offering, p.region, p.price_kind, p.purchase_option,
       p.offering_class, p.work_unit, p.units_per_hour, o.usd_per_offering_hour, o.price_unit, o.price_fetched_at,
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
 AND o.purchase_option IS NOT DISTINCT FROM p.purchase_option AND o.offering_class IS NOT DISTINCT FROM p.offering_class
WHERE p.quality_passed AND (p.p95_latency_ms IS NULL OR p.p95_latency_ms <= p.latency_target_ms);

-- The guide's decision for a real workload: what each priced candidate costs a month for the workload's traffic
-- profile, billed the way it is sold. Both billings run over the profile's own month (days_per_month x 24 h), so a
-- 31-day month bills always-on 744 h, not 730 h below its busy hours. Always-on capacity is sized for the peak and
-- billed every hour of those days; a serverless GPU is billed for its busy time plus, per worker and active period,
-- the cold start (where billed) and the idle tail before scale-down, each span rounded up to the billed increment.
-- Every quotient goes through integers (exact_quotient, or // for a ceiling): DuckDB divides DECIMALs in DOUBLE.

CREATE OR REPLACE MACRO ceil_quotient(n, d) AS (CAST(n AS HUGEINT) + CAST(d AS HUGEINT) - 1) // CAST(d AS HUGEINT);

-- The current profile per workload: the latest input wins.
CREATE OR REPLACE VIEW traffic_profiles AS
SELECT t.*, i.recorded_at, i.recorded_by, i.origin, i.content_sha256
FROM traffic_profile_history AS t
JOIN pilot_inputs AS i USING (input_id)
QUALIFY row_number() OVER (PARTITION BY t.workload ORDER BY t.input_id DESC, t.row_number DESC) = 1;

CREATE OR REPLACE VIEW deployment_costs AS
WITH candidates AS (
    SELECT c.*, t.monthly_units, t.active_hours_per_day, t.peak_units_per_hour, t.days_per_month,
           t.cold_start_seconds,
           coalesce(g.gpu_model, g.gpu_name, a.accelerator) AS accelerator_model,
           CASE WHEN c.price_kind = 'serverless' THEN 'serverless' ELSE 'always_on' END AS billing,
           g.billing_increment_seconds, g.idle_timeout_seconds, g.cold_start_billed,
           -- Workers or instances for the peak (none for a workload with no traffic): integers, rounded up.
           CASE WHEN t.monthly_units = 0 THEN 0
                ELSE ceil_quotient(CAST(t.peak_units_per_hour * 1000 AS HUGEINT),
                                   CAST(c.units_per_hour * 1000 AS HUGEINT)) END AS instances,
           exact_quotient(CAST(t.monthly_units AS HUGEINT) * 1000, CAST(c.units_per_hour * 1000 AS HUGEINT))
               AS busy_hours_per_month
    FROM cost_per_work AS c
    JOIN traffic_profiles AS t USING (workload)
    LEFT JOIN gpu_listings AS g
      ON c.offering_source = 'gpu_listing' AND g.provider = c.provider AND g.listing = c.offering
     AND g.price_kind = c.price_kind AND g.region IS NOT DISTINCT FROM c.region
    LEFT JOIN aws_instance_prices AS a
      ON c.offering_source = 'aws_instance' AND a.instance_type = c.offering AND a.price_kind = c.price_kind
     AND a.region IS NOT DISTINCT FROM c.region AND a.purchase_option IS NOT DISTINCT FROM c.purchase_option
     AND a.offering_class IS NOT DISTINCT FROM c.offering_class
),
spans AS (  -- serverless: one span per worker per active period, in microseconds
    SELECT *,
           CASE WHEN billing = 'serverless' AND instances > 0 THEN
               ceil_quotient(CAST(monthly_units AS HUGEINT) * 3600 * 1000000 * 1000 * 100,
                             CAST(units_per_hour * 1000 AS HUGEINT) * CAST(days_per_month * 100 AS HUGEINT)
                             * instances)
               -- In HUGEINT: an hour's cold start in microseconds overflows INTEGER.
               + CAST(CASE WHEN cold_start_billed THEN cold_start_seconds ELSE 0 END
                      + coalesce(idle_timeout_seconds, 0) AS HUGEINT) * 1000000
           END AS span_us
    FROM candidates
),
billed AS (
    SELECT *,
           CASE WHEN billing = 'always_on' THEN CAST(instances * days_per_month * 24 AS DECIMAL(38, 6))
                WHEN instances = 0 THEN CAST(0 AS DECIMAL(38, 6))
                ELSE exact_quotient(ceil_quotient(span_us, billing_increment_seconds * 1000000)
                                    * billing_increment_seconds * 1000000 * instances
                                    * CAST(days_per_month * 100 AS HUGEINT),
                                    CAST(3600 AS HUGEINT) * 1000000 * 100) END AS billed_hours_per_month
    FROM spans
),
priced AS (
    SELECT *,
           -- Exact: DECIMAL(38, 6) x DECIMAL(38, 18) multiplies in DECIMAL(38, 24) without rounding.
           billed_hours_per_month * usd_per_offering_hour AS monthly_usd,
           mode(conditions) OVER (PARTITION BY workload ORDER BY conditions
                                  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS workload_conditions
    FROM billed
)
SELECT workload, offering_source, provider, offering, region, price_kind, purchase_option, offering_class,
       accelerator_model, billing,
       CAST(instances AS INTEGER) AS instances, billed_hours_per_month, busy_hours_per_month,
       CASE WHEN billed_hours_per_month > 0
            THEN exact_quotient(CAST(busy_hours_per_month * 1000000 AS HUGEINT),
                                CAST(billed_hours_per_month * 1000000 AS HUGEINT)) END AS utilisation,
       usd_per_offering_hour AS usd_per_billed_hour, monthly_usd,
       CASE WHEN monthly_units > 0
            THEN exact_quotient(CAST(CAST(monthly_usd AS DECIMAL(38, 6)) * 1000000 AS HUGEINT) * 1000000,
                                CAST(monthly_units AS HUGEINT) * 1000000) END AS usd_per_million_accepted,
       conditions IS NOT DISTINCT FROM workload_conditions AS comparable,
       CASE WHEN conditions IS DISTINCT FROM workload_conditions
            THEN 'not comparable: piloted at ' || conditions || '; most of this workload''s pilots at '
                 || workload_conditions END AS not_comparable_because,
       CASE WHEN conditions IS NOT DISTINCT FROM workload_conditions
            THEN rank() OVER (PARTITION BY workload, conditions IS NOT DISTINCT FROM workload_conditions
                              ORDER BY monthly_usd) END AS rank,
       work_unit, units_per_hour, monthly_units, active_hours_per_day, peak_units_per_hour, days_per_month,
       cold_start_seconds, billing_increment_seconds, idle_timeout_seconds, cold_start_billed, conditions,
       price_fetched_at, price_source_url, price_content_sha256, price_parser_version
FROM priced;

-- Per workload and accelerator: the utilisation of an always-on fleet at which it costs what serverless does for
-- the same work, from the cheapest comparable candidate of each billing (cold starts and idle tails aside).
CREATE OR REPLACE VIEW deployment_break_even AS
WITH cheapest AS (
    SELECT d.workload, d.accelerator_model, d.billing,
           min(c.usd_per_million_units) AS usd_per_million_busy
    FROM deployment_costs AS d
    JOIN cost_per_work AS c
      ON c.workload = d.workload AND c.offering_source = d.offering_source AND c.offering = d.offering
     AND c.price_kind = d.price_kind AND c.provider IS NOT DISTINCT FROM d.provider
     AND c.region IS NOT DISTINCT FROM d.region AND c.purchase_option IS NOT DISTINCT FROM d.purchase_option
     AND c.offering_class IS NOT DISTINCT FROM d.offering_class
    WHERE d.comparable
    GROUP BY ALL
)
SELECT a.workload, a.accelerator_model,
       a.usd_per_million_busy AS always_on_usd_per_million_at_full_use,
       s.usd_per_million_busy AS serverless_usd_per_million_busy,
       exact_quotient(CAST(a.usd_per_million_busy * 1000000 AS HUGEINT),
                      CAST(s.usd_per_million_busy * 1000000 AS HUGEINT)) AS break_even_utilisation,
       CASE WHEN a.usd_per_million_busy >= s.usd_per_million_busy THEN 'serverless at any utilisation'
            ELSE 'always-on above the break-even utilisation, serverless below it' END AS reading
FROM cheapest AS a
JOIN cheapest AS s ON s.workload = a.workload AND s.accelerator_model = a.accelerator_model
WHERE a.billing = 'always_on' AND s.billing = 'serverless';

-- Migration payback, after deployment_costs: its monthly costs come from there when the
-- workload has a traffic profile.
CREATE OR REPLACE VIEW migration_payback AS
WITH plans AS (
    SELECT m.*, i.recorded_at, i.recorded_by, i.origin
    FROM migration_plan_history AS m JOIN pilot_inputs AS i USING (input_id)
    QUALIFY row_number() OVER (PARTITION BY m.workload ORDER BY m.input_id DESC) = 1
),
-- What a month costs on each passed pilot's offering: with a traffic profile, deployment_costs' monthly_usd (idle
-- hours, cold starts and tails billed as sold); without one, the hours the volume needs x the hourly price.
monthly AS (
    SELECT m.input_id AS plan_id, c.*,
           coalesce(CAST(d.monthly_usd AS DECIMAL(38, 6)),
                    exact_quotient(CAST(c.usd_per_offering_hour * 1000000000000 AS HUGEINT)
                                   * CAST(m.monthly_volume AS HUGEINT),
                                   CAST(c.units_per_hour * 1000 AS HUGEINT) * 1000000000)) AS monthly_cost_usd,
           CASE WHEN d.monthly_usd IS NOT NULL THEN 'deployment_costs: the traffic profile, idle time billed'
                ELSE 'busy hours only: no traffic profile for the workload' END AS monthly_cost_basis
    FROM plans AS m JOIN cost_per_work AS c USING (workload)
    LEFT JOIN deployment_costs AS d
      ON d.workload = c.workload AND d.offering_source = c.offering_source AND d.offering = c.offering
     AND d.price_kind = c.price_kind AND d.provider IS NOT DISTINCT FROM c.provider
     AND d.region IS NOT DISTINCT FROM c.region AND d.purchase_option IS NOT DISTINCT FROM c.purchase_option
     AND d.offering_class IS NOT DISTINCT FROM c.offering_class
),
paired AS (
    SELECT m.*, b.offering AS found_baseline, b.work_unit, b.usd_per_million_units AS baseline_usd_per_million,
           b.monthly_cost_usd AS baseline_monthly_usd,
           c.offering_source AS candidate_source, c.provider AS candidate_provider, c.offering AS candidate_offering,
           c.region AS candidate_region, c.price_kind AS candidate_price_kind,
           c.purchase_option AS candidate_purchase_option, c.offering_class AS candidate_offering_class,
           c.usd_per_million_units AS candidate_usd_per_million, c.monthly_cost_usd AS candidate_monthly_usd,
           b.conditions AS baseline_conditions, c.conditions AS candidate_conditions,
           c.monthly_cost_basis,
           b.monthly_cost_usd - c.monthly_cost_usd - m.monthly_maintenance_usd AS net_saving
    FROM plans AS m
    LEFT JOIN monthly AS b
      ON b.plan_id = m.input_id AND b.offering_source = m.baseline_source AND b.offering = m.baseline_offering
     AND b.price_kind = m.baseline_price_kind AND b.provider IS NOT DISTINCT FROM m.baseline_provider
     AND b.region IS NOT DISTINCT FROM m.baseline_region
     -- Its terms pick one of a reserved kind's prices (a plan landed before terms were kept names none: any).
     AND (m.baseline_purchase_option IS NULL OR b.purchase_option = m.baseline_purchase_option)
     AND (m.baseline_offering_class IS NULL OR b.offering_class = m.baseline_offering_class)
    LEFT JOIN monthly AS c
      ON c.plan_id = m.input_id AND c.work_unit = b.work_unit
     AND NOT (c.offering_source = b.offering_source AND c.offering = b.offering AND c.price_kind = b.price_kind
              AND c.provider IS NOT DISTINCT FROM b.provider AND c.region IS NOT DISTINCT FROM b.region
              AND c.purchase_option IS NOT DISTINCT FROM b.purchase_option
              AND c.offering_class IS NOT DISTINCT FROM b.offering_class)
)
SELECT workload, baseline_source, baseline_provider, baseline_offering, baseline_region, baseline_price_kind,
       baseline_purchase_option, baseline_offering_class,
       candidate_source, candidate_provider, candidate_offering, candidate_region, candidate_price_kind,
       candidate_purchase_option, candidate_offering_class, work_unit, monthly_volume, baseline_usd_per_million, candidate_usd_per_million,
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
       baseline_conditions IS NOT DISTINCT FROM candidate_conditions AS comparable,
       monthly_cost_basis
FROM paired;

-- Training to a target quality: what a run to the target costs on each offering, every overhead billed. A run that
-- missed its target is never priced; runs on different datasets, evaluations or stopping criteria are never ranked
-- against each other. Every product is DECIMAL x DECIMAL, exact.

-- A Capacity Block is sold for whole durations: 1 to 14 days in 1-day steps, then up to 182 days in 7-day steps (the
-- EC2 User Guide's "Capacity Blocks for ML", docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html,
-- curated: no source ratecard fetches states them). The hours a run needs, rounded up to the shortest such block;
-- NULL beyond 182 days (more than one block: not priced, and said so).
CREATE OR REPLACE MACRO capacity_block_hours(hours) AS
    CASE WHEN hours <= 336 THEN CAST(ceil_quotient(CAST(hours * 1000 AS HUGEINT), 24000) * 24 AS DECIMAL(18, 3))
         WHEN hours <= 4368 THEN CAST(ceil_quotient(CAST(hours * 1000 AS HUGEINT), 168000) * 168 AS DECIMAL(18, 3))
    END;

-- The current run per workload, offering (terms included) and conditions: the latest input wins.
CREATE OR REPLACE VIEW training_runs AS
SELECT r.*, r.dataset || ' / ' || r.evaluation || ' / ' || r.stopping_criterion AS run_conditions,
       r.wall_hours + r.compile_hours + r.warmup_hours + coalesce(r.interrupted_hours, 0) + r.recovery_hours
           AS hours_to_target,
       i.recorded_at, i.recorded_by, i.origin, i.content_sha256
FROM training_run_history AS r
JOIN pilot_inputs AS i USING (input_id)
QUALIFY row_number() OVER (
    PARTITION BY r.workload, r.offering_source, r.provider, r.offering, r.region, r.price_kind, r.purchase_option,
                 r.offering_class, r.dataset, r.evaluation, r.stopping_criterion
    ORDER BY r.input_id DESC, r.row_number DESC) = 1;

-- Every current run, whether it is priced, and why not.
CREATE OR REPLACE VIEW training_standing AS
SELECT r.workload, r.offering_source, r.provider, r.offering, r.region, r.price_kind, r.purchase_option,
       r.offering_class, r.quality_reached, r.target_metric, r.run_conditions, r.framework_path, r.hours_to_target,
       o.usd_per_offering_hour IS NOT NULL AND r.quality_reached
           AND (r.price_kind <> 'capacity_block' OR capacity_block_hours(r.hours_to_target) IS NOT NULL) AS priced,
       CASE WHEN NOT r.quality_reached THEN 'target quality not reached (' || r.target_metric || ')'
            WHEN o.usd_per_offering_hour IS NULL THEN 'no current price for this offering'
            WHEN r.price_kind = 'capacity_block' AND capacity_block_hours(r.hours_to_target) IS NULL
                THEN 'longer than the longest Capacity Block (182 days)'
       END AS not_priced_because,
       r.measured_on, r.input_id, r.origin, r.recorded_at
FROM training_runs AS r
LEFT JOIN offering_prices AS o
  ON o.offering_source = r.offering_source AND o.offering = r.offering AND o.price_kind = r.price_kind
 AND o.provider IS NOT DISTINCT FROM r.provider AND o.region IS NOT DISTINCT FROM r.region
 AND o.purchase_option IS NOT DISTINCT FROM r.purchase_option AND o.offering_class IS NOT DISTINCT FROM r.offering_class;

CREATE OR REPLACE VIEW training_costs AS
WITH priced AS (
    SELECT r.*, o.usd_per_offering_hour, o.price_unit, o.price_fetched_at, o.price_source_url,
           o.price_content_sha256, o.price_parser_version
    FROM training_runs AS r
    JOIN offering_prices AS o
      ON o.offering_source = r.offering_source AND o.offering = r.offering AND o.price_kind = r.price_kind
     AND o.provider IS NOT DISTINCT FROM r.provider AND o.region IS NOT DISTINCT FROM r.region
     AND o.purchase_option IS NOT DISTINCT FROM r.purchase_option
     AND o.offering_class IS NOT DISTINCT FROM r.offering_class
    WHERE r.quality_reached
),
billed AS (
    SELECT *,
           CASE WHEN price_kind = 'capacity_block' THEN capacity_block_hours(hours_to_target)
                ELSE hours_to_target END AS billed_hours,
           CASE WHEN price_kind = 'capacity_block'
                THEN 'whole Capacity Blocks: 1-14 days in 1-day steps, up to 182 days in 7-day steps (EC2 User Guide, curated)'
                ELSE 'each hour used' END AS billing_rule,
           mode(run_conditions) OVER (PARTITION BY workload ORDER BY run_conditions
                                      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS workload_conditions
    FROM priced
    WHERE price_kind <> 'capacity_block' OR capacity_block_hours(hours_to_target) IS NOT NULL
)
SELECT workload, offering_source, provider, offering, region, price_kind, purchase_option, offering_class,
       instances, wall_hours, compile_hours, warmup_hours, interrupted_hours, recovery_hours, hours_to_target,
       billed_hours, billed_hours - hours_to_target AS unused_block_hours, billing_rule,
       usd_per_offering_hour, price_unit,
       instances * wall_hours * usd_per_offering_hour AS training_usd,
       instances * compile_hours * usd_per_offering_hour AS compile_usd,
       instances * warmup_hours * usd_per_offering_hour AS warmup_usd,
       instances * coalesce(interrupted_hours, 0) * usd_per_offering_hour AS interrupted_usd,
       instances * recovery_hours * usd_per_offering_hour AS recovery_usd,
       instances * (billed_hours - hours_to_target) * usd_per_offering_hour AS unused_block_usd,
       instances * billed_hours * usd_per_offering_hour AS spend_to_target_usd,
       target_metric, dataset, evaluation, stopping_criterion, run_conditions,
       run_conditions = workload_conditions AS comparable,
       CASE WHEN run_conditions <> workload_conditions
            THEN 'not compared: this run used ' || run_conditions || '; most of this workload''s runs used '
                 || workload_conditions END AS not_comparable_because,
       CASE WHEN run_conditions = workload_conditions
            THEN rank() OVER (PARTITION BY workload, run_conditions = workload_conditions
                              ORDER BY instances * billed_hours * usd_per_offering_hour) END AS rank,
       framework_path, measured_on, note, input_id, origin, recorded_by, recorded_at, content_sha256,
       price_fetched_at, price_source_url, price_content_sha256, price_parser_version
FROM billed;
