-- Every current AWS instance price and GPU listing in one shape, and the names an accelerator goes by.
-- Public views (`ratecard find` and `ratecard.query` read them): add columns freely, rename none.

-- A price kind's family, the names `ratecard find --kind` takes: a term or plan is part of the kind, not the family.
CREATE OR REPLACE MACRO price_kind_family(kind) AS
    CASE WHEN kind LIKE 'reserved%' OR kind LIKE 'committed_use%' THEN 'reserved'
         WHEN kind LIKE '%savings_plan%' OR kind LIKE 'flexible_cud%' THEN 'savings_plan'
         WHEN kind LIKE 'serverless%' THEN 'serverless'
         WHEN kind LIKE 'sagemaker%' THEN 'sagemaker'
         ELSE kind END;

CREATE OR REPLACE VIEW accelerator_offers AS
WITH aws_variants AS (  -- the NVIDIA reference's form factor of the GPU an AWS name stands for, when it has one
    SELECT aws_accelerator, CASE WHEN count(DISTINCT gpu_variant) = 1 THEN any_value(gpu_variant) END AS variant
    FROM nvidia_gpu_specs WHERE aws_accelerator IS NOT NULL
    GROUP BY aws_accelerator
),
aws AS (
    SELECT 'AWS' AS provider, p.instance_type AS offering, 'aws_instance' AS offering_kind,
           p.accelerator AS accelerator_model, v.variant AS accelerator_variant,
           p.accelerator AS accelerator_printed,
           -- A fractional GPU (g6f) holds its share of one GPU, not a whole one.
           CAST(coalesce(t.accelerator_share, p.accelerator_count) AS DECIMAL(18, 6)) AS accelerators_per_offering,
           CAST(coalesce(c.memory_gib, decimal_quotient(p.accelerator_memory_gib, p.accelerator_count))
                AS DECIMAL(38, 12)) AS accelerator_memory_gib,
           CASE WHEN c.memory_gib IS NOT NULL THEN 'neuron_docs'
                WHEN p.accelerator_memory_gib IS NOT NULL THEN 'price_row' END AS accelerator_memory_basis,
           p.price_kind, p.lease_years, p.purchase_option, p.offering_class,
           CASE WHEN p.lease_years IS NOT NULL
                THEN concat_ws(' ', p.lease_years || '-year', lower(p.purchase_option), lower(p.offering_class))
                WHEN p.indicative THEN 'indicative' END AS terms,
           CASE WHEN p.region_stated THEN p.region END AS region, p.region_code,
           CAST(NULL AS VARCHAR) AS stock_status,
           p.usd_per_accelerator_hour, p.usd_per_instance_hour,
           p.fetched_at, p.source_id, p.source_url, p.content_sha256, p.parser_version
    FROM aws_instance_prices AS p
    LEFT JOIN aws_variants AS v ON v.aws_accelerator = p.accelerator
    LEFT JOIN accelerator_chips AS c ON c.chip = p.accelerator
    LEFT JOIN aws_instance_types AS t
           ON p.source_family = 'price_list' AND t.instance_type = p.instance_type AND t.region_code = p.region_code
),
listings AS (
    SELECT provider, listing, 'gpu_listing', gpu_model, gpu_variant, gpu_name,
           CAST(gpu_count AS DECIMAL(18, 6)),
           CAST(gpu_memory_gib AS DECIMAL(38, 12)),
           CASE WHEN gpu_memory_from_catalog THEN 'gpu_catalog' WHEN gpu_memory_gib IS NOT NULL THEN 'price_row' END,
           -- A kind with a term (reserved_1y, savings_plan_3y) names its years; the listing keeps them as the kind.
           price_kind, CAST(nullif(regexp_extract(price_kind, '_(\d)y$', 1), '') AS INTEGER) AS term_years, NULL, NULL,
           concat_ws(', ', 'billed per ' || period || CASE WHEN price_per = 'instance' THEN ' per instance'
                                                           WHEN accelerator_vendor(gpu_model) = 'Google' THEN ' per chip'
                                                           ELSE ' per GPU' END,
                     term_years || '-year term'),
           region, NULL,
           -- The provider's statement only: a listing that says nothing of its stock is not in stock by default.
           CASE WHEN stock_status IN ('in_stock', 'sold_out') THEN stock_status END,
           usd_per_gpu_hour, usd_per_gpu_hour * gpu_count,
           fetched_at, source_id, source_url, content_sha256, parser_version
    FROM gpu_listings
),
offers AS (SELECT * FROM aws UNION ALL SELECT * FROM listings)
SELECT provider, offering, offering_kind, accelerator_model, accelerator_variant, accelerator_printed,
       accelerators_per_offering, accelerator_memory_gib, accelerator_memory_basis,
       price_kind, price_kind_family(price_kind) AS price_kind_family, lease_years, purchase_option, offering_class,
       terms, region, region_code, stock_status,
       CAST(usd_per_accelerator_hour AS DECIMAL(38, 18)) AS usd_per_accelerator_hour,
       CAST(usd_per_instance_hour AS DECIMAL(38, 18)) AS usd_per_instance_hour,
       fetched_at, source_id, source_url, content_sha256, parser_version
FROM offers;

-- The names each accelerator goes by, for a search to match: the canonical model, model and form factor, the
-- NVIDIA reference's names, the vendor's name before each (NVIDIA, AWS, Google), the launch families (Trn2) and the AWS
-- instance families (trn2, p5) of the types that carry it.
CREATE OR REPLACE VIEW accelerator_names AS
WITH models AS (
    SELECT DISTINCT accelerator_model AS model, accelerator_variant AS variant
    FROM accelerator_offers WHERE accelerator_model IS NOT NULL
    UNION SELECT gpu_model, gpu_variant FROM nvidia_gpu_specs
    UNION SELECT chip, NULL FROM accelerator_chips
),
named AS (
    SELECT model AS name, model, NULL AS variant, 'model' AS basis FROM models
    UNION SELECT model || ' ' || variant, model, variant, 'model and form factor' FROM models WHERE variant IS NOT NULL
    UNION SELECT gpu, gpu_model, gpu_variant, 'nvidia_reference' FROM nvidia_gpu_specs
    UNION SELECT family, chip, NULL, 'launch family' FROM accelerator_launches
    UNION SELECT DISTINCT family, accelerator, NULL, 'aws instance family' FROM aws_instance_prices
    WHERE family IS NOT NULL AND accelerator IS NOT NULL
),
vendors AS (  -- a chip's vendor as its docs say, else by its canonical name
    SELECT m.model, coalesce(any_value(c.vendor), accelerator_vendor(m.model)) AS vendor
    FROM models AS m LEFT JOIN accelerator_chips AS c ON c.chip = m.model
    GROUP BY m.model
)
SELECT name, model AS accelerator_model, variant AS accelerator_variant, basis FROM named
UNION
SELECT v.vendor || ' ' || n.name, n.model, n.variant, 'vendor and ' || n.basis
FROM named AS n JOIN vendors AS v USING (model)
WHERE n.basis IN ('model', 'model and form factor', 'nvidia_reference');
