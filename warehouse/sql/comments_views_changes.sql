-- Comments on the change feed (re-applied after its CREATE OR REPLACE VIEW, which drops them).

COMMENT ON MACRO unscaled_18 IS 'A DECIMAL(38, 18) as the whole number of its 10^-18 units (HUGEINT), exactly: the integer part and the fraction are scaled apart so that neither overflows.';
COMMENT ON MACRO percent_change IS '(new - old) / old x 100 for DECIMAL(38, 18) prices, exact, rounded half away from zero to 2 decimals (DECIMAL(38, 2)); NULL unless old > 0.';

COMMENT ON VIEW price_changes IS 'The change feed: what moved between consecutive versions of aws_instance_price_history, aws_pricelist_price_history and gpu_listing_history (price moves, listings added or removed, stock flips), and source shape changes from fetch_log. One row per change; a source''s first landing is not a change. Prices are USD excluding tax.';
COMMENT ON COLUMN price_changes.changed_at IS 'When the change was seen: the fetch time of the version that brought it (for a removal, of the fetch that closed the last version) (UTC).';
COMMENT ON COLUMN price_changes.change IS 'price (the USD price moved; for a non-USD listing a new exchange rate alone moves it too), added (a listing or instance price not offered before), removed (no longer offered), stock (stock_status flipped) or shape (the page''s parsed shape changed).';
COMMENT ON COLUMN price_changes.family IS 'aws (aws_instance_price_history), aws_pricelist (aws_pricelist_price_history, region = region code), gpu (gpu_listing_history) or source (fetch_log, for shape changes).';
COMMENT ON COLUMN price_changes.source_id IS 'Source id.';
COMMENT ON COLUMN price_changes.provider IS 'AWS, or the GPU provider''s display name; NULL for shape changes.';
COMMENT ON COLUMN price_changes.offering IS 'The instance type (AWS) or the provider''s listing name (GPU); NULL for shape changes.';
COMMENT ON COLUMN price_changes.model IS 'Canonical GPU model (the printed name when unrecognised); NULL for AWS and shape changes.';
COMMENT ON COLUMN price_changes.price_kind IS 'Price kind of the offering (on_demand, capacity_block, spot, ...); a price-list reserved offer adds its term, payment option and class (reserved_1y no upfront standard), a Savings Plan its term and payment option (compute_savings_plan_3y all upfront).';
COMMENT ON COLUMN price_changes.region IS 'Region as printed; NULL when not stated.';
COMMENT ON COLUMN price_changes.old_usd_per_accelerator_hour IS 'USD per accelerator-hour (AWS) or per GPU-hour (GPU) before the change, excluding tax; NULL for an addition.';
COMMENT ON COLUMN price_changes.new_usd_per_accelerator_hour IS 'USD per accelerator-hour (AWS) or per GPU-hour (GPU) after the change, excluding tax; NULL for a removal.';
COMMENT ON COLUMN price_changes.change_pct IS '(new - old) / old x 100, exact DECIMAL, rounded half away from zero to 2 decimals; NULL unless both prices are known and differ (a stock flip at an unchanged price has none).';
COMMENT ON COLUMN price_changes.old_value IS 'Stock status before a stock flip (or of a removed listing), or the shape fingerprint before a shape change.';
COMMENT ON COLUMN price_changes.new_value IS 'Stock status after a stock flip (or of an added listing), or the shape fingerprint after a shape change.';
COMMENT ON COLUMN price_changes.fetch_id IS 'fetch_log row of the fetch that brought the change (traces it to URL, fetch time, hash and parser version).';
COMMENT ON COLUMN price_changes.source_url IS 'URL the changed figure was fetched from.';
