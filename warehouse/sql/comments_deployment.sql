-- Comments on the deployment views (re-applied after each CREATE OR REPLACE VIEW, which drops them).

COMMENT ON MACRO ceil_quotient IS 'n / d rounded up, for whole numbers (HUGEINT): a count of instances, or a span rounded up to the billed increment.';

COMMENT ON VIEW traffic_profiles IS 'The current traffic profile per workload (the latest `ratecard pilot traffic` input), with its provenance.';
COMMENT ON COLUMN traffic_profiles.input_id IS 'The pilot_inputs row it came with.';
COMMENT ON COLUMN traffic_profiles.row_number IS 'Its row in the CSV; 1 for options.';
COMMENT ON COLUMN traffic_profiles.workload IS 'The workload, as its pilots name it.';
COMMENT ON COLUMN traffic_profiles.monthly_units IS 'Work units the workload must deliver per month (accepted work); 0: no traffic.';
COMMENT ON COLUMN traffic_profiles.active_hours_per_day IS 'Hours per day during which requests arrive.';
COMMENT ON COLUMN traffic_profiles.peak_units_per_hour IS 'Work units in the busiest hour: always-on capacity is sized for it.';
COMMENT ON COLUMN traffic_profiles.days_per_month IS 'Days per month with traffic: one active period, one cold start and one idle tail per serverless worker each.';
COMMENT ON COLUMN traffic_profiles.cold_start_seconds IS 'A serverless worker''s start-up (image, model load), seconds; billed only where the provider bills cold starts.';
COMMENT ON COLUMN traffic_profiles.note IS 'Free text from the user; NULL when none.';
COMMENT ON COLUMN traffic_profiles.recorded_at IS 'When the profile landed (UTC).';
COMMENT ON COLUMN traffic_profiles.recorded_by IS 'The operating-system user who ran the command.';
COMMENT ON COLUMN traffic_profiles.origin IS 'The CSV''s path, or the command.';
COMMENT ON COLUMN traffic_profiles.content_sha256 IS 'SHA-256 of the CSV''s bytes, or of the command''s options as canonical JSON.';

COMMENT ON VIEW deployment_costs IS 'One row per workload with a traffic profile x priced candidate (a pilot that passed its quality check and met its latency target, at a current price): what a month of that traffic costs, billed as the offering is sold. USD, excluding tax. always_on: instances = ceil(peak / the pilot''s units per hour), billed instances x 730 hours. serverless: the busy hours (monthly units / units per hour) spread over one span per worker per active period (days_per_month of them), each span plus the billed cold start and the idle timeout, rounded up to the billed increment. monthly_usd = billed_hours_per_month x usd_per_billed_hour on every row. Rows compare only under the same pilot conditions: rank is NULL, and not_comparable_because says why, for the others.';
COMMENT ON COLUMN deployment_costs.workload IS 'The workload.';
COMMENT ON COLUMN deployment_costs.offering_source IS 'aws_instance or gpu_listing.';
COMMENT ON COLUMN deployment_costs.provider IS 'GPU provider; NULL for an AWS instance.';
COMMENT ON COLUMN deployment_costs.offering IS 'Instance type or listing name.';
COMMENT ON COLUMN deployment_costs.region IS 'Region; NULL where none is stated.';
COMMENT ON COLUMN deployment_costs.price_kind IS 'The price kind billed (serverless_active, always warm, bills as always_on).';
COMMENT ON COLUMN deployment_costs.accelerator_model IS 'Canonical GPU model, or the AWS accelerator (Trainium, Inferentia2, ...).';
COMMENT ON COLUMN deployment_costs.billing IS 'always_on (billed every hour of the month) or serverless (billed per second of a worker''s life, scaling to zero).';
COMMENT ON COLUMN deployment_costs.instances IS 'Instances (always_on) or concurrent workers (serverless) the peak needs: ceil(peak_units_per_hour / units_per_hour); 0 for a workload with no traffic.';
COMMENT ON COLUMN deployment_costs.billed_hours_per_month IS 'Hours billed per month: instances x 730 (always_on); for serverless, instances x days_per_month spans, each busy time + billed cold start + idle timeout rounded up to the billed increment (6 decimals, half-up).';
COMMENT ON COLUMN deployment_costs.busy_hours_per_month IS 'Hours of serving the month''s work: monthly_units / units_per_hour (6 decimals, half-up).';
COMMENT ON COLUMN deployment_costs.utilisation IS 'busy_hours_per_month / billed_hours_per_month, never above 1; NULL when nothing is billed (no traffic).';
COMMENT ON COLUMN deployment_costs.usd_per_billed_hour IS 'USD per hour of the whole offering, excluding tax (a serverless listing: its per-second price x 3600 x its GPUs).';
COMMENT ON COLUMN deployment_costs.monthly_usd IS 'billed_hours_per_month x usd_per_billed_hour, USD excluding tax, rounded half-up to 6 decimals.';
COMMENT ON COLUMN deployment_costs.usd_per_million_accepted IS 'monthly_usd per million work units the profile delivers (accepted work: only passed pilots are candidates), idle time included; NULL with no traffic.';
COMMENT ON COLUMN deployment_costs.comparable IS 'True when the candidate was piloted under the conditions most of the workload''s candidates share (latency target, lengths, concurrency).';
COMMENT ON COLUMN deployment_costs.not_comparable_because IS 'Why the row is not ranked; NULL when it is comparable.';
COMMENT ON COLUMN deployment_costs.rank IS '1 = cheapest monthly_usd among the workload''s comparable candidates (ties share a rank); NULL when not comparable.';
COMMENT ON COLUMN deployment_costs.work_unit IS 'tokens, steps or requests.';
COMMENT ON COLUMN deployment_costs.units_per_hour IS 'The pilot''s measured work units per hour of the offering.';
COMMENT ON COLUMN deployment_costs.monthly_units IS 'The profile''s monthly work units.';
COMMENT ON COLUMN deployment_costs.active_hours_per_day IS 'The profile''s active hours per day.';
COMMENT ON COLUMN deployment_costs.peak_units_per_hour IS 'The profile''s peak work units per hour.';
COMMENT ON COLUMN deployment_costs.days_per_month IS 'The profile''s days with traffic per month.';
COMMENT ON COLUMN deployment_costs.cold_start_seconds IS 'The profile''s cold start, seconds (billed where cold_start_billed).';
COMMENT ON COLUMN deployment_costs.billing_increment_seconds IS 'Serverless: the provider''s billed increment, seconds; NULL for always-on.';
COMMENT ON COLUMN deployment_costs.idle_timeout_seconds IS 'Serverless: idle seconds billed before scale-down, as the provider states; NULL (counted as 0) when not stated.';
COMMENT ON COLUMN deployment_costs.cold_start_billed IS 'Serverless: whether the provider bills cold starts; NULL (counted as not billed) when not stated.';
COMMENT ON COLUMN deployment_costs.conditions IS 'The pilot''s conditions in words (pilot_conditions).';
COMMENT ON COLUMN deployment_costs.price_fetched_at IS 'When the price was fetched (UTC).';
COMMENT ON COLUMN deployment_costs.price_source_url IS 'URL the price was fetched from.';

COMMENT ON VIEW deployment_break_even IS 'Per workload and accelerator with both billings piloted: the utilisation of an always-on fleet at which it costs what serverless does for the same work = (always-on USD per million units at full use) / (serverless USD per million busy units), from the cheapest comparable candidate of each. Below it serverless is cheaper; at or above 1, serverless is cheaper at any utilisation. Cold starts and idle tails are left out here (deployment_costs counts them).';
COMMENT ON COLUMN deployment_break_even.workload IS 'The workload.';
COMMENT ON COLUMN deployment_break_even.accelerator_model IS 'Canonical GPU model or AWS accelerator.';
COMMENT ON COLUMN deployment_break_even.always_on_usd_per_million_at_full_use IS 'Cheapest always-on USD per million work units at 100 % utilisation, excluding tax.';
COMMENT ON COLUMN deployment_break_even.serverless_usd_per_million_busy IS 'Cheapest serverless USD per million work units of busy time, excluding tax.';
COMMENT ON COLUMN deployment_break_even.break_even_utilisation IS 'The always-on utilisation at which both cost the same (6 decimals, half-up).';
COMMENT ON COLUMN deployment_break_even.reading IS 'What the figure means for this pair.';
