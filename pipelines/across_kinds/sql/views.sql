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
WHERE prev_fingerprint IS DISTINCT FROM shape_fingerprint AND prev_fingerprint IS NOT NULL
UNION ALL
-- A Neuron documentation page that gives a package another status than its previous version did.
SELECT valid_from, 'status', 'neuron_gate', source_id, 'AWS Neuron', package, framework, NULL, NULL, NULL, NULL, NULL,
       prev_status, status, fetch_id, source_url
FROM (SELECT *, lag(status) OVER w AS prev_status, lag(valid_to) OVER w AS prev_valid_to
      FROM neuron_support_history
      WINDOW w AS (PARTITION BY source_id, package, work, versions ORDER BY valid_from))
WHERE prev_valid_to = valid_from AND prev_status IS DISTINCT FROM status;

-- The NVIDIA reference per GPU, and every current price per accelerator-hour, GiB-hour and dense PFLOP-hour.
-- Public views: add columns freely, rename none.

-- DuckDB divides DECIMAL by DECIMAL in DOUBLE, so money quotients are taken on scaled integers instead:
-- n / d exactly, rounded half up at 12 decimals. For positive n and d (prices, memory, compute figures).
CREATE OR REPLACE MACRO decimal_scaled18(x) AS
    CAST(replace(CAST(CAST(x AS DECIMAL(38, 18)) AS VARCHAR), '.', '') AS HUGEINT);
CREATE OR REPLACE MACRO decimal_quotient(n, d) AS
    CASE WHEN n IS NULL OR d IS NULL OR d <= 0 THEN NULL
         ELSE CAST((2 * decimal_scaled18(n) * CAST(1000000000000 AS HUGEINT) + decimal_scaled18(d))
                   // (2 * decimal_scaled18(d)) AS DECIMAL(38, 0)) * CAST(0.000000000001 AS DECIMAL(38, 12))
    END;

CREATE OR REPLACE VIEW gpu_reference_figures AS
SELECT * EXCLUDE (attributes_hash) FROM gpu_reference_figure_history WHERE valid_to IS NULL;

-- One row per reference GPU; a figure the reference does not give is NULL (sparse figures stay in their column).
CREATE OR REPLACE VIEW nvidia_gpu_specs AS
SELECT gpu, any_value(gpu_model) AS gpu_model, any_value(gpu_variant) AS gpu_variant,
       any_value(aws_accelerator) AS aws_accelerator, any_value(aws_memory_gb) AS aws_memory_gb,
       max(printed) FILTER (WHERE figure = 'memory') AS memory_printed,
       max(value) FILTER (WHERE figure = 'memory') AS memory_value,
       max(unit) FILTER (WHERE figure = 'memory') AS memory_unit,
       max(normalised) FILTER (WHERE figure = 'memory') AS memory_gib,
       max(printed) FILTER (WHERE figure = 'bandwidth') AS bandwidth_printed,
       max(normalised) FILTER (WHERE figure = 'bandwidth') AS bandwidth_gb_s,
       max(normalised) FILTER (WHERE figure_key = 'FP8 dense') AS fp8_dense_tflops,
       max(normalised) FILTER (WHERE figure_key = 'BF16 dense') AS bf16_dense_tflops,
       max(normalised) FILTER (WHERE figure_key = 'FP16 dense') AS fp16_dense_tflops,
       max(normalised) FILTER (WHERE figure_key = 'FP32 dense') AS fp32_tflops,
       max(normalised) FILTER (WHERE figure_key = 'FP8 sparse') AS fp8_sparse_tflops,
       max(figure_source_url) FILTER (WHERE figure = 'memory') AS memory_source_url,
       max(figure_source_url) FILTER (WHERE figure_key = 'FP8 dense') AS fp8_source_url,
       max(figure_source_url) FILTER (WHERE figure_key = 'BF16 dense') AS bf16_source_url,
       max(figure_source_date) AS latest_figure_date,
       any_value(source_url) AS source_url, any_value(sha256) AS sha256,
       any_value(fetched_at) AS fetched_at, any_value(parser_version) AS parser_version
FROM gpu_reference_figures
GROUP BY gpu;

CREATE OR REPLACE VIEW accelerator_value AS
WITH neuron_fp8 AS (  -- an 8-bit float figure, the format named: FP8 first, else MXFP8, else cFP8
    SELECT subject AS chip,
           arg_min(tera, CASE number_format WHEN 'FP8' THEN 1 WHEN 'MXFP8' THEN 2 ELSE 3 END) AS fp8_tflops,
           arg_min(number_format, CASE number_format WHEN 'FP8' THEN 1 WHEN 'MXFP8' THEN 2 ELSE 3 END) AS fp8_format
    FROM accelerator_compute
    WHERE subject_kind = 'chip' AND NOT sparse AND number_format IN ('FP8', 'MXFP8', 'cFP8')
    GROUP BY subject
),
neuron_bf16 AS (
    SELECT subject AS chip, max(tera) AS bf16_tflops
    FROM accelerator_compute WHERE subject_kind = 'chip' AND NOT sparse AND number_format = 'BF16'
    GROUP BY subject
),
neuron AS (  -- every documented chip: AWS's from the Neuron docs, Google's TPUs from the Cloud TPU docs
    SELECT c.chip, c.memory_gib, f.fp8_format, f.fp8_tflops, b.bf16_tflops, c.source_url AS spec_source_url,
           CASE c.vendor WHEN 'Google' THEN 'google_tpu_docs' ELSE 'neuron_docs' END AS spec_source
    FROM accelerator_chips AS c LEFT JOIN neuron_fp8 AS f USING (chip) LEFT JOIN neuron_bf16 AS b USING (chip)
),
nvidia AS (
    SELECT *, count(*) OVER (PARTITION BY gpu_model, gpu_variant) AS siblings,
           CASE WHEN fp8_dense_tflops IS NOT NULL THEN 'FP8' END AS fp8_format
    FROM nvidia_gpu_specs
),
aws AS (
    SELECT 'AWS' AS seller, 'aws_instance' AS offering_kind, p.instance_type AS offering,
           p.accelerator AS accelerator_printed, coalesce(n.chip, g.gpu) AS accelerator_spec,
           CASE WHEN n.chip IS NOT NULL THEN n.spec_source WHEN g.gpu IS NOT NULL THEN 'nvidia_reference' END
               AS spec_source,
           p.region_code AS region, p.price_kind, p.lease_years, p.purchase_option, p.offering_class,
           p.accelerator_count, p.usd_per_accelerator_hour,
           coalesce(n.memory_gib, g.memory_gib, decimal_quotient(p.accelerator_memory_gib, p.accelerator_count))
               AS memory_gib_per_accelerator,
           CASE WHEN coalesce(n.memory_gib, g.memory_gib) IS NOT NULL THEN 'spec'
                WHEN p.accelerator_memory_gib IS NOT NULL THEN 'price_row' END AS memory_basis,
           coalesce(n.fp8_format, g.fp8_format) AS fp8_format,
           coalesce(n.fp8_tflops, g.fp8_dense_tflops) AS dense_fp8_tflops,
           coalesce(n.bf16_tflops, g.bf16_dense_tflops) AS dense_bf16_tflops,
           coalesce(n.spec_source_url, g.source_url) AS spec_source_url,
           p.source_id, p.source_url, p.fetched_at, p.sha256 AS content_sha256, p.parser_version
    FROM aws_instance_prices AS p
    LEFT JOIN neuron AS n ON n.chip = p.accelerator
    LEFT JOIN nvidia AS g ON g.aws_accelerator = p.accelerator
         AND (g.aws_memory_gb IS NULL
              OR (p.accelerator_memory_unit = 'GB' AND g.aws_memory_gb * p.accelerator_count = p.accelerator_memory_value))
),
listings AS (  -- a rented GPU's figures from the NVIDIA reference, a rented TPU's from the chip's own docs
    SELECT l.provider, 'gpu_listing', l.listing, l.gpu_name, coalesce(n.chip, g.gpu),
           CASE WHEN n.chip IS NOT NULL THEN n.spec_source WHEN g.gpu IS NOT NULL THEN 'nvidia_reference' END,
           l.region, l.price_kind, NULL, NULL, NULL,
           l.gpu_count, l.usd_per_gpu_hour,
           coalesce(l.gpu_memory_gib, n.memory_gib, g.memory_gib),
           CASE WHEN l.gpu_memory_gib IS NOT NULL THEN 'price_row'
                WHEN coalesce(n.memory_gib, g.memory_gib) IS NOT NULL THEN 'spec' END,
           coalesce(n.fp8_format, g.fp8_format), coalesce(n.fp8_tflops, g.fp8_dense_tflops),
           coalesce(n.bf16_tflops, g.bf16_dense_tflops), coalesce(n.spec_source_url, g.source_url),
           l.source_id, l.source_url, l.fetched_at, l.sha256, l.parser_version
    FROM gpu_listings AS l
    LEFT JOIN neuron AS n ON n.chip = l.gpu_model
    LEFT JOIN nvidia AS g ON g.gpu_model = l.gpu_model AND g.gpu_variant IS NOT DISTINCT FROM l.gpu_variant
         AND (g.siblings = 1 OR g.memory_value = l.gpu_memory_printed)
),
priced AS (SELECT * FROM aws UNION ALL SELECT * FROM listings)
SELECT seller, offering_kind, offering, accelerator_printed, accelerator_spec, spec_source, region, price_kind,
       lease_years, purchase_option, offering_class, accelerator_count, usd_per_accelerator_hour,
       memory_gib_per_accelerator, memory_basis,
       decimal_quotient(usd_per_accelerator_hour, memory_gib_per_accelerator) AS usd_per_gib_memory_hour,
       fp8_format, dense_fp8_tflops,
       decimal_quotient(usd_per_accelerator_hour, dense_fp8_tflops * CAST(0.001 AS DECIMAL(4, 3)))
           AS usd_per_dense_pflop_hour_fp8,
       'BF16' AS bf16_format, dense_bf16_tflops,
       decimal_quotient(usd_per_accelerator_hour, dense_bf16_tflops * CAST(0.001 AS DECIMAL(4, 3)))
           AS usd_per_dense_pflop_hour_bf16,
       spec_source_url, source_id, source_url, fetched_at, content_sha256, parser_version
FROM priced;

-- The guide's first step for each AWS candidate a workload's pilots or training runs name: does its framework path
-- run on Neuron for this instance family at the current release? Read from the documentation's statements
-- (neuron_support) only: a path no page speaks of is "not verified", never passed.
-- How far a gate judgement stops a candidate: the most restrictive of several stands.
CREATE OR REPLACE MACRO gate_severity(gate) AS
    CASE gate WHEN 'ineligible' THEN 4 WHEN 'not verified' THEN 3 WHEN 'validate first' THEN 2 ELSE 1 END;

CREATE OR REPLACE MACRO instance_family(offering) AS
    lower(nullif(regexp_extract(offering, '^([A-Za-z]+[0-9]+[a-z]*)\.', 1), ''));

CREATE OR REPLACE VIEW decision_gate AS
WITH candidates AS (
    SELECT DISTINCT workload, 'inference' AS work, offering, framework_path FROM pilot_results
    WHERE offering_source = 'aws_instance'
    UNION
    SELECT DISTINCT workload, 'training', offering, framework_path FROM training_runs
    WHERE offering_source = 'aws_instance'
),
current_release AS (
    SELECT arg_max(release, release_order) AS release FROM neuron_releases WHERE release_date IS NOT NULL
),
-- A dated statement holds from its release on (or after the last release that has the package): before it, it is
-- announced only.
statements AS (
    SELECT s.*,
           (s.from_release IS NULL OR (SELECT release FROM current_release) IS NULL
               OR release_order((SELECT release FROM current_release)) >= release_order(s.from_release))
           AND (s.last_release IS NULL OR (SELECT release FROM current_release) IS NULL
               OR release_order((SELECT release FROM current_release)) > release_order(s.last_release)) AS in_force,
           coalesce(' from Neuron ' || s.from_release, ' after Neuron ' || s.last_release, '') AS dated,
           CASE WHEN s.work IS NOT NULL THEN ' for ' || s.work ELSE '' END
               || CASE WHEN s.announced_on IS NOT NULL THEN ' (announced ' || strftime(s.announced_on, '%Y-%m-%d') || ')'
                       ELSE '' END AS said
    FROM neuron_support AS s
),
judged AS (
    SELECT c.workload, c.work, c.offering, instance_family(c.offering) AS family, c.framework_path,
           s.status, s.instances, s.from_release, s.release, s.release_date, s.quoted, s.source_id, s.source_url,
           s.fetched_at, s.sha256, s.parser_version, s.lifecycle_phase, s.phase_meaning,
           CASE WHEN c.framework_path IS NULL THEN 'not verified'
                WHEN s.status IS NULL THEN 'not verified'
                -- A statement about some versions of the package: the pilot names no version, so it can only warn.
                WHEN s.versions IS NOT NULL THEN 'validate first'
                WHEN s.instances IS NOT NULL AND s.instances_only
                     AND NOT list_contains(s.instances, instance_family(c.offering)) THEN 'ineligible'
                WHEN s.status = 'archived' THEN 'ineligible'
                WHEN s.status IN ('not included', 'end of support') AND s.in_force THEN 'ineligible'
                -- Families named without "only": another family is neither in nor out.
                WHEN s.instances IS NOT NULL AND NOT list_contains(s.instances, instance_family(c.offering))
                    THEN 'not verified'
                WHEN s.status IN ('beta', 'not included', 'end of support') OR s.in_maintenance THEN 'validate first'
                ELSE 'eligible' END AS gate,
           CASE WHEN c.framework_path IS NULL THEN 'the pilot names no framework path'
                WHEN s.status IS NULL THEN 'no Neuron documentation page ratecard reads states a status for '
                     || c.framework_path
                WHEN s.versions IS NOT NULL
                    THEN c.framework_path || ' ' || s.versions || ': '
                         || CASE WHEN s.in_maintenance THEN 'maintenance mode' ELSE s.status END || s.dated || s.said
                         || '; the pilot names no version, so check the one it runs'
                WHEN s.instances IS NOT NULL AND s.instances_only
                     AND NOT list_contains(s.instances, instance_family(c.offering))
                    THEN 'the documentation names only ' || array_to_string(s.instances, ', ') || ' for '
                         || c.framework_path
                WHEN s.status = 'archived' THEN c.framework_path || ' is archived' || s.said
                WHEN s.status = 'not included' AND s.in_force
                    THEN c.framework_path || ' is not included'
                         || CASE WHEN s.dated = '' THEN ' from a release not stated' ELSE s.dated END || s.said
                WHEN s.status = 'end of support' AND s.in_force
                    THEN c.framework_path || ' is end of support' || s.dated || s.said
                WHEN s.instances IS NOT NULL AND NOT list_contains(s.instances, instance_family(c.offering))
                    THEN 'the documentation names ' || array_to_string(s.instances, ', ') || ' for '
                         || c.framework_path || ' (' || s.status || ') and says nothing of '
                         || instance_family(c.offering)
                WHEN s.status = 'not included'
                    THEN c.framework_path || ' is not included' || s.dated || s.said
                WHEN s.status = 'end of support'
                    THEN c.framework_path || ' reaches end of support' || s.dated || s.said
                WHEN s.in_maintenance
                    THEN c.framework_path || ' is in maintenance mode' || s.dated || s.said || ': critical fixes only'
                ELSE c.framework_path || ' is ' || s.status
                     || CASE WHEN s.instances IS NULL THEN ' (instance families not stated)' ELSE '' END
           END AS reason
    FROM candidates AS c
    LEFT JOIN statements AS s
      ON (lower(s.package) = lower(c.framework_path) OR lower(s.framework) = lower(c.framework_path)
          OR lower(s.manifest_package) = lower(c.framework_path))
     AND (s.work IS NULL OR s.work = c.work)
     -- Some versions supported says nothing of the path's; only a warning about them is worth showing.
     AND (s.versions IS NULL OR s.in_maintenance OR s.status IN ('archived', 'not included', 'end of support'))
     -- An announced end of support or maintenance mode for named families speaks of those families only.
     AND NOT ((s.status = 'end of support' OR coalesce(s.in_maintenance, false)) AND s.instances IS NOT NULL
              AND NOT coalesce(s.instances_only, false)
              AND NOT list_contains(s.instances, instance_family(c.offering)))
),
-- Several pages may speak of one path: the most restrictive judgement stands, with its quote. Ties go by one fixed
-- order (source id, then reason); the statement is taken whole, so every column comes from the same one.
ranked AS (
    SELECT workload, work, offering, family, framework_path,
           arg_max({'gate': gate, 'reason': reason, 'status': status, 'release': release, 'quoted': quoted,
                    'source_url': source_url, 'fetched_at': fetched_at, 'sha256': sha256,
                    'parser_version': parser_version, 'lifecycle_phase': lifecycle_phase,
                    'phase_meaning': phase_meaning},
                   (gate_severity(gate), source_id, reason)) AS chosen,
           count(status) AS statements
    FROM judged
    GROUP BY ALL
)
SELECT workload, work, offering, family, framework_path,
       chosen.gate AS gate, chosen.reason AS reason, chosen.status AS status, chosen.release AS release,
       chosen.quoted AS quoted, chosen.source_url AS source_url, chosen.fetched_at AS fetched_at,
       chosen.sha256 AS sha256, chosen.parser_version AS parser_version, chosen.lifecycle_phase AS lifecycle_phase,
       chosen.phase_meaning AS phase_meaning, statements
FROM ranked;
