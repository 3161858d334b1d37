-- The guide's decision for a real workload (issue 22): what each priced candidate costs a month for the workload's
-- traffic profile, billed the way it is sold. Always-on capacity is sized for the peak and billed every hour of
-- the month; a serverless GPU is billed for its busy time plus, per worker and active period, the cold start (where
-- billed) and the idle tail before scale-down, each span rounded up to the billed increment. Every quotient goes
-- through integers (exact_quotient, or // for a ceiling): DuckDB divides DECIMALs in DOUBLE.

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
     AND a.region IS NOT DISTINCT FROM c.region
),
spans AS (  -- serverless: one span per worker per active period, in microseconds
    SELECT *,
           CASE WHEN billing = 'serverless' AND instances > 0 THEN
               ceil_quotient(CAST(monthly_units AS HUGEINT) * 3600 * 1000000 * 1000 * 100,
                             CAST(units_per_hour * 1000 AS HUGEINT) * CAST(days_per_month * 100 AS HUGEINT)
                             * instances)
               + (CASE WHEN cold_start_billed THEN cold_start_seconds ELSE 0 END
                  + coalesce(idle_timeout_seconds, 0)) * 1000000
           END AS span_us
    FROM candidates
),
billed AS (
    SELECT *,
           CASE WHEN billing = 'always_on' THEN CAST(instances * 730 AS DECIMAL(38, 6))
                WHEN instances = 0 THEN CAST(0 AS DECIMAL(38, 6))
                ELSE exact_quotient(ceil_quotient(span_us, billing_increment_seconds * 1000000)
                                    * billing_increment_seconds * 1000000 * instances
                                    * CAST(days_per_month * 100 AS HUGEINT),
                                    CAST(3600 AS HUGEINT) * 1000000 * 100) END AS billed_hours_per_month
    FROM spans
),
priced AS (
    SELECT *,
           exact_quotient(CAST(billed_hours_per_month * 1000000 AS HUGEINT)
                          * CAST(usd_per_offering_hour * 1000000000000000 AS HUGEINT),
                          CAST(1000000000000000000000 AS HUGEINT)) AS monthly_usd,
           mode(conditions) OVER (PARTITION BY workload ORDER BY conditions
                                  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS workload_conditions
    FROM billed
)
SELECT workload, offering_source, provider, offering, region, price_kind, accelerator_model, billing,
       CAST(instances AS INTEGER) AS instances, billed_hours_per_month, busy_hours_per_month,
       CASE WHEN billed_hours_per_month > 0
            THEN exact_quotient(CAST(busy_hours_per_month * 1000000 AS HUGEINT),
                                CAST(billed_hours_per_month * 1000000 AS HUGEINT)) END AS utilisation,
       usd_per_offering_hour AS usd_per_billed_hour, monthly_usd,
       CASE WHEN monthly_units > 0
            THEN exact_quotient(CAST(monthly_usd * 1000000 AS HUGEINT) * 1000000,
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
       price_fetched_at, price_source_url
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
     AND c.region IS NOT DISTINCT FROM d.region
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
