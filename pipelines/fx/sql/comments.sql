-- What the ECB rates table holds.

COMMENT ON TABLE fx_rates IS 'ECB euro foreign exchange reference rates as published, by currency and rate date. A later fetch with a different value for a landed (currency, rate date) is an ECB correction: the old row is closed (valid_to) and the new one added, so exactly one row per (currency, rate date) has valid_to NULL and conversions use it; the same value again adds nothing.';
COMMENT ON COLUMN fx_rates.currency IS 'ISO 4217 currency.';
COMMENT ON COLUMN fx_rates.rate_date IS 'Date of the ECB reference rate.';
COMMENT ON COLUMN fx_rates.units_per_eur IS 'Units of currency per 1 EUR, as published by the ECB.';
COMMENT ON COLUMN fx_rates.valid_to IS 'Fetch time of the correction that replaced this value; NULL while current. The value was known from fetched_at until valid_to.';
COMMENT ON COLUMN fx_rates.fetch_id IS 'fetch_log row that produced the rate.';
COMMENT ON COLUMN fx_rates.source_url IS 'URL the rate was fetched from.';
COMMENT ON COLUMN fx_rates.fetched_at IS 'When it was fetched (UTC).';
COMMENT ON COLUMN fx_rates.sha256 IS 'SHA-256 of the archived XML.';
COMMENT ON COLUMN fx_rates.parser_version IS 'Adapter and version that parsed it.';
