-- Comments on accelerator_availability (re-applied after its CREATE OR REPLACE VIEW, which drops them).

COMMENT ON VIEW accelerator_availability IS 'Where an accelerator can be had: one row per accelerator model and form factor, provider, region and price kind family ever seen, saying whether it is listed now (in accelerator_offers), its cheapest current USD per accelerator-hour, and when it was first and last seen in the price history (aws_instance_price_history, aws_pricelist_price_history, gpu_listing_history). Rows whose accelerator no rule recognises are left out (accelerator_offers keeps them).';
COMMENT ON COLUMN accelerator_availability.accelerator_model IS 'Canonical accelerator model, as accelerator_offers.accelerator_model (Trainium2, H100, ...).';
COMMENT ON COLUMN accelerator_availability.accelerator_variant IS 'Form factor (SXM, PCIe, NVL) as accelerator_offers.accelerator_variant; NULL when none applies or it is not known.';
COMMENT ON COLUMN accelerator_availability.provider IS 'Who offers it: AWS, or the GPU provider''s display name.';
COMMENT ON COLUMN accelerator_availability.region IS 'The region: for AWS the location name of its region code as any AWS source states it (US East (Ohio)), else the code; a GPU listing''s region as printed. NULL means not stated: the source names none.';
COMMENT ON COLUMN accelerator_availability.region_code IS 'AWS region code (us-east-2); NULL for GPU listings and where no region is stated. A region code and its name are one region: prices naming either are counted together.';
COMMENT ON COLUMN accelerator_availability.price_kind_family IS 'The family of the price kinds counted (macro price_kind_family): on_demand, spot, capacity_block, reserved, savings_plan, serverless or community.';
COMMENT ON COLUMN accelerator_availability.listed_now IS 'Whether any current offer (accelerator_offers) has this model, provider, region and price kind family.';
COMMENT ON COLUMN accelerator_availability.offers_now IS 'How many current offers (rows of accelerator_offers) it has; 0 when not listed now.';
COMMENT ON COLUMN accelerator_availability.cheapest_usd_per_accelerator_hour IS 'The cheapest current USD per accelerator-hour among them, excluding tax, exact DECIMAL; NULL when not listed now.';
COMMENT ON COLUMN accelerator_availability.cheapest_offering IS 'The offering (instance type or listing) at that price (ties: the first by name); NULL when not listed now.';
COMMENT ON COLUMN accelerator_availability.cheapest_price_kind IS 'The exact price kind of that offer (reserved_3y, compute_savings_plan_1y, ...); NULL when not listed now.';
COMMENT ON COLUMN accelerator_availability.first_seen_at IS 'When a price for it was first seen: the earliest valid_from of its price versions (UTC).';
COMMENT ON COLUMN accelerator_availability.last_seen_at IS 'When a price for it was last seen: the latest fetch of its source that landed or found the page unchanged while one of its price versions was open (UTC).';
COMMENT ON COLUMN accelerator_availability.source_id IS 'Source id of the cheapest current offer, or of the last version seen when none is listed now (pipelines/sources.toml).';
COMMENT ON COLUMN accelerator_availability.source_url IS 'URL that offer''s price was fetched from (of the last version seen when none is listed now).';
COMMENT ON COLUMN accelerator_availability.fetched_at IS 'When that offer''s price was fetched (UTC): the age of the data.';
COMMENT ON COLUMN accelerator_availability.content_sha256 IS 'SHA-256 of the archived body that offer''s price was parsed from (fetch_log.sha256).';
COMMENT ON COLUMN accelerator_availability.parser_version IS 'Adapter and version that parsed that offer''s price (fetch_log.parser_version).';
