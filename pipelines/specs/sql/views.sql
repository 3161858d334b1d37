-- Public accelerator specification views: add columns freely, rename none.

-- A DECIMAL figure as text without trailing zeros (1299.000000 -> 1299, 2.900000 -> 2.9).
CREATE OR REPLACE MACRO spec_figure_text(x) AS regexp_replace(CAST(x AS VARCHAR), '\.?0+$', '');

CREATE OR REPLACE VIEW accelerator_chips AS
SELECT * EXCLUDE (attributes_hash) FROM accelerator_chip_history WHERE valid_to IS NULL;

CREATE OR REPLACE VIEW accelerator_configs AS
SELECT * EXCLUDE (attributes_hash) FROM accelerator_config_history WHERE valid_to IS NULL;

CREATE OR REPLACE VIEW accelerator_compute AS
SELECT * EXCLUDE (attributes_hash) FROM accelerator_compute_history WHERE valid_to IS NULL;

CREATE OR REPLACE VIEW neuron_sdk_release AS
SELECT * EXCLUDE (attributes_hash) FROM neuron_sdk_release_history WHERE valid_to IS NULL;

CREATE OR REPLACE VIEW accelerator_launches AS
SELECT * EXCLUDE (attributes_hash) FROM accelerator_launch_history WHERE valid_to IS NULL;

-- Advertising as data: never joined into any computed figure.
CREATE OR REPLACE VIEW vendor_claims AS
SELECT claim_text, page_url, page_title, page_date, is_claim, source_id, source_url, fetched_at, sha256,
       parser_version, fetch_id, valid_from
FROM vendor_claim_history WHERE valid_to IS NULL;

-- The articles' generations table: one row per chip, dense figures only (a sparse one is never shown as dense).
CREATE OR REPLACE VIEW accelerator_generations AS
WITH shared AS (  -- formats that share one printed figure come back together: BF16/FP16/TF32 667 TFLOPS
    SELECT subject AS chip, sparse, value, unit, tera, string_agg(number_format, '/' ORDER BY number_format) AS formats
    FROM accelerator_compute WHERE subject_kind = 'chip'
    GROUP BY subject, sparse, value, unit, tera
),
dense AS (
    SELECT chip, string_agg(formats || ' ' || spec_figure_text(value) || ' ' || unit, '; ' ORDER BY tera DESC)
               AS dense_formats
    FROM shared WHERE NOT sparse GROUP BY chip
),
sparse AS (
    SELECT chip, string_agg(formats || ' ' || spec_figure_text(value) || ' ' || unit, '; ' ORDER BY tera DESC)
               AS sparse_formats
    FROM shared WHERE sparse GROUP BY chip
),
launch AS (
    SELECT chip, arg_min(family, launch_date) AS launch_family, min(launch_date) AS launch_date,
           arg_min(status, launch_date) AS launch_status, arg_min(launch_source_url, launch_date) AS launch_source_url
    FROM accelerator_launches WHERE chip IS NOT NULL
    GROUP BY chip
)
SELECT c.chip, l.launch_family, l.launch_date, l.launch_status,
       c.neuron_cores, c.neuron_core_version,
       c.memory_printed, c.memory_gib, c.bandwidth_printed, c.bandwidth_gb_s,
       d.dense_formats, s.sparse_formats,
       c.source_url, c.doc_version, c.fetched_at, c.sha256, c.parser_version, l.launch_source_url
FROM accelerator_chips AS c
LEFT JOIN dense AS d USING (chip)
LEFT JOIN sparse AS s USING (chip)
LEFT JOIN launch AS l USING (chip)
ORDER BY l.launch_date NULLS LAST, c.chip;

-- Half a unit in the last printed digit of a figure, in the figure's own unit: 2.9 -> 0.05, 13,120 -> 0.5.
CREATE OR REPLACE MACRO spec_half_step(printed) AS
    0.5 * CAST(10 ^ -length(regexp_extract(printed, '\d[\d,]*\.(\d+)', 1)) AS DECIMAL(18, 6));

-- Each configuration total against chips x the chip page's figure, in one unit (GiB, GB/s, TFLOPS/TOPS). Memory
-- bandwidth agrees within the printed rounding of both figures; memory and compute within 2 %.
CREATE OR REPLACE VIEW accelerator_config_crosscheck AS
WITH totals AS (
    SELECT g.configuration, g.chip, g.chips, 'memory GiB' AS figure, g.memory_printed AS printed,
           g.memory_gib AS printed_total, c.memory_gib AS chip_figure, c.memory_printed AS chip_printed,
           g.source_url AS config_source_url, c.source_url AS chip_source_url,
           CAST(NULL AS DECIMAL(18, 6)) AS rounding
    FROM accelerator_configs AS g JOIN accelerator_chips AS c USING (chip)
    WHERE g.memory_gib IS NOT NULL
    UNION ALL
    SELECT g.configuration, g.chip, g.chips, 'memory bandwidth GB/s', g.bandwidth_printed,
           g.bandwidth_gb_s, c.bandwidth_gb_s, c.bandwidth_printed, g.source_url, c.source_url,
           CAST(spec_half_step(g.bandwidth_printed) * g.bandwidth_gb_s / g.bandwidth_value
                + g.chips * spec_half_step(c.bandwidth_printed) * c.bandwidth_gb_s / c.bandwidth_value AS DECIMAL(18, 6))
    FROM accelerator_configs AS g JOIN accelerator_chips AS c USING (chip)
    WHERE g.bandwidth_gb_s IS NOT NULL
    UNION ALL
    SELECT g.configuration, g.chip, g.chips,
           gc.number_format || CASE WHEN gc.sparse THEN ' sparse' ELSE ' dense' END || ' tera-ops',
           spec_figure_text(gc.value) || ' ' || gc.unit, gc.tera, cc.tera, spec_figure_text(cc.value) || ' ' || cc.unit,
           g.source_url, cc.source_url, NULL
    FROM accelerator_configs AS g
    JOIN accelerator_compute AS gc ON gc.subject_kind = 'configuration' AND gc.subject = g.configuration
    JOIN accelerator_compute AS cc ON cc.subject_kind = 'chip' AND cc.subject = g.chip
                                  AND cc.number_format = gc.number_format AND cc.sparse = gc.sparse
),
checked AS (
    SELECT * EXCLUDE (rounding), chips * chip_figure AS expected_total,
           CAST(coalesce(rounding, 0.02 * chips * chip_figure) AS DECIMAL(18, 6)) AS tolerance
    FROM totals
)
SELECT configuration, chip, chips, figure, printed, printed_total, chip_figure, chip_printed, config_source_url,
       chip_source_url, expected_total,
       round(abs(printed_total - expected_total) / expected_total, 4) AS relative_difference,
       abs(printed_total - expected_total) <= tolerance AS agrees,
       CASE WHEN abs(printed_total - expected_total) > tolerance THEN
           configuration || ' ' || figure || ': ' || printed || ' = ' || spec_figure_text(round(printed_total, 1))
           || ' printed at ' || config_source_url || ' vs '
           || chips || ' chips x ' || chip_printed || ' at ' || chip_source_url || ' = '
           || spec_figure_text(expected_total)
       END AS warning,
       tolerance
FROM checked;
