-- Comments on the offers views (re-applied after their CREATE OR REPLACE VIEW, which drops them).

COMMENT ON MACRO price_kind_family IS 'The family of a price kind, as `ratecard find --kind` names it: reserved (reserved, reserved_1y, reserved_3y, Google''s committed_use_1y/_3y), savings_plan (every Savings Plan kind, AWS''s and Azure''s, and Google''s flexible_cud_1y/_3y), serverless (serverless, serverless_active); any other kind is its own family (on_demand, spot, capacity_block, community, dws_flex_start, dws_calendar).';

COMMENT ON VIEW accelerator_offers IS 'Every current AWS instance price (aws_instance_prices) and GPU listing (gpu_listings) in one shape: who offers what accelerator, how many per offering, at what price per accelerator-hour and per offering-hour, on which terms, where and from which source. One row per current price row of either view. Prices are USD excluding tax, exact DECIMALs.';
COMMENT ON COLUMN accelerator_offers.provider IS 'Who offers it: AWS, or the GPU provider''s display name.';
COMMENT ON COLUMN accelerator_offers.offering IS 'What is rented: the AWS instance type, or the provider''s listing name.';
COMMENT ON COLUMN accelerator_offers.offering_kind IS 'aws_instance (a row of aws_instance_prices) or gpu_listing (a row of gpu_listings).';
COMMENT ON COLUMN accelerator_offers.accelerator_model IS 'Canonical accelerator model: the AWS accelerator name (Trainium2, Inferentia2, H100, ...) or the GPU listing''s gpu_model (pipelines/gpu/gpu_names.py); NULL for a GPU name no rule recognises (accelerator_printed keeps it).';
COMMENT ON COLUMN accelerator_offers.accelerator_variant IS 'Canonical form factor (SXM, PCIe, NVL): the listing''s gpu_variant, or for AWS the NVIDIA reference''s variant of the GPU the AWS name stands for; NULL when none applies or it is not known.';
COMMENT ON COLUMN accelerator_offers.accelerator_printed IS 'The accelerator as the source names it (gpu_listings.gpu_name; for AWS the accelerator name of the price row).';
COMMENT ON COLUMN accelerator_offers.accelerators_per_offering IS 'Accelerators in one offering (instance or listing); a fractional GPU instance (g6f) holds its share of one GPU (0.125 = an eighth).';
COMMENT ON COLUMN accelerator_offers.accelerator_memory_gib IS 'Memory per accelerator in GiB (2^30 bytes), exact at 12 decimals; NULL when no source states it. For AWS the Neuron documentation''s chip figure when there is one, else the price row''s memory divided by its accelerators; for a listing its own figure, else the GPU catalog''s (accelerator_memory_basis says which).';
COMMENT ON COLUMN accelerator_offers.accelerator_memory_basis IS 'Where accelerator_memory_gib comes from: neuron_docs (accelerator_chips), price_row (the price row or listing states it) or gpu_catalog (the listing states none: the canonical GPU''s figure); NULL when not known.';
COMMENT ON COLUMN accelerator_offers.price_kind IS 'Price kind as the source view gives it: on_demand, spot, capacity_block, reserved_1y, reserved_3y, compute_savings_plan_1y, ec2_instance_savings_plan_3y, ... (AWS); on_demand, spot, community, reserved, reserved_1y, reserved_3y, savings_plan_1y, savings_plan_3y, committed_use_1y, committed_use_3y, flexible_cud_1y, flexible_cud_3y, dws_flex_start, dws_calendar, serverless, serverless_active (GPU listings).';
COMMENT ON COLUMN accelerator_offers.price_kind_family IS 'The family of price_kind (macro price_kind_family): on_demand, spot, capacity_block, reserved, savings_plan, serverless or community.';
COMMENT ON COLUMN accelerator_offers.lease_years IS 'Term in years of a reserved price or Savings Plan: AWS''s, or a GPU listing''s kind with a term (reserved_1y, savings_plan_3y: read from the kind); NULL for every other kind.';
COMMENT ON COLUMN accelerator_offers.purchase_option IS 'Payment option of a reserved price or Savings Plan (All Upfront, Partial Upfront, No Upfront); NULL otherwise.';
COMMENT ON COLUMN accelerator_offers.offering_class IS 'Reserved offering class (standard, convertible); NULL otherwise.';
COMMENT ON COLUMN accelerator_offers.terms IS 'The terms in a few words: an AWS term and payment (1-year all upfront standard), indicative for a spot price, or how a GPU listing is billed, with its term when its kind has one (billed per hour per GPU; billed per hour per chip, for a TPU; billed per year per instance, 1-year term); NULL when the price states none beyond its kind.';
COMMENT ON COLUMN accelerator_offers.region IS 'Region as the source names it (US East (Ohio); a spot price gives its code); NULL means not stated: the source names none.';
COMMENT ON COLUMN accelerator_offers.region_code IS 'AWS region code (us-east-2) of an AWS price whose region is known; NULL for GPU listings and where no region is stated.';
COMMENT ON COLUMN accelerator_offers.stock_status IS 'in_stock or sold_out as the GPU provider states it; NULL when the source says nothing of stock (every AWS price, and listings whose stock is unknown): never assumed in stock.';
COMMENT ON COLUMN accelerator_offers.usd_per_accelerator_hour IS 'USD per accelerator-hour, excluding tax, exact DECIMAL: the AWS derived per-accelerator rate (instance price / accelerators; a fractional GPU prices a whole GPU-hour), or the listing''s USD per GPU-hour (converted at the ECB rate of its fetch date).';
COMMENT ON COLUMN accelerator_offers.usd_per_instance_hour IS 'USD per offering-hour (one instance or listing for an hour), excluding tax, exact DECIMAL: the AWS instance-hour price, or a listing''s USD per GPU-hour x its GPUs.';
COMMENT ON COLUMN accelerator_offers.fetched_at IS 'When the price was fetched (UTC): the age of the data.';
COMMENT ON COLUMN accelerator_offers.source_id IS 'Source id the price came from (pipelines/sources.toml).';
COMMENT ON COLUMN accelerator_offers.source_url IS 'URL the price was fetched from.';
COMMENT ON COLUMN accelerator_offers.content_sha256 IS 'SHA-256 of the archived body the price was parsed from (fetch_log.sha256).';
COMMENT ON COLUMN accelerator_offers.parser_version IS 'Adapter and version that parsed the price (fetch_log.parser_version).';

COMMENT ON VIEW accelerator_names IS 'The names an accelerator goes by, for searches (`ratecard find --accelerator`, matched case-insensitively): the canonical model, model and form factor (H100 SXM), the NVIDIA reference''s names, each with its vendor before it (NVIDIA H100, AWS Trainium2), the launch families (Trn2) and the AWS instance families of the types that carry it (trn2, p5). One row per name and model.';
COMMENT ON COLUMN accelerator_names.name IS 'A name of the accelerator.';
COMMENT ON COLUMN accelerator_names.accelerator_model IS 'The canonical model the name stands for: joins accelerator_offers.accelerator_model.';
COMMENT ON COLUMN accelerator_names.accelerator_variant IS 'The form factor the name implies (H100 SXM: SXM); NULL when the name stands for every form factor of the model.';
COMMENT ON COLUMN accelerator_names.basis IS 'Where the name comes from: model, model and form factor, nvidia_reference, launch family, aws instance family, or vendor and one of the first three.';
