-- Every table, view and column says what it holds, in which unit, and how derived figures were made.

COMMENT ON TABLE fetch_log IS 'One row per fetch attempt of a source: what was asked, what came back, and what became of it. Every landed row points here by fetch_id.';
COMMENT ON COLUMN fetch_log.fetch_id IS 'Surrogate key of the fetch; history and quarantine rows reference it.';
COMMENT ON COLUMN fetch_log.source_id IS 'Source id from the sources file (pipelines/sources.toml or --sources FILE).';
COMMENT ON COLUMN fetch_log.url IS 'URL requested, as declared for the source.';
COMMENT ON COLUMN fetch_log.final_url IS 'URL that answered after same-host redirects; NULL when nothing answered.';
COMMENT ON COLUMN fetch_log.status IS 'HTTP status of the last attempt; NULL when no response arrived (timeout, refused).';
COMMENT ON COLUMN fetch_log.fetched_at IS 'When the successful attempt started (UTC); for failures, when fetching started.';
COMMENT ON COLUMN fetch_log.sha256 IS 'Hex SHA-256 of the response body; the body is archived under this name.';
COMMENT ON COLUMN fetch_log.bytes IS 'Size of the (decompressed) response body in bytes.';
COMMENT ON COLUMN fetch_log.elapsed_ms IS 'Wall time of the whole fetch including retries, in milliseconds.';
COMMENT ON COLUMN fetch_log.attempts IS 'HTTP attempts made, including retries.';
COMMENT ON COLUMN fetch_log.content_type IS 'Content-Type header of the response.';
COMMENT ON COLUMN fetch_log.parser_version IS 'Adapter and version that parsed the body, e.g. aws_product_page/1.0.';
COMMENT ON COLUMN fetch_log.outcome IS 'landed (new versions written), unchanged (nothing differed), quarantined (parse or validation failed; nothing landed), fetch_failed (no usable response).';
COMMENT ON COLUMN fetch_log.rows_inserted IS 'History rows opened by this fetch (specs plus prices).';
COMMENT ON COLUMN fetch_log.rows_closed IS 'History rows closed by this fetch (changed or gone from the source).';
COMMENT ON COLUMN fetch_log.shape_fingerprint IS 'Hash of the parsed table''s headers in order; a change from the last landed fetch is a shape drift.';
COMMENT ON COLUMN fetch_log.warnings IS 'Quality warnings raised while landing: drift rules set to warn, unknown GPU names, rows listed without a price.';
COMMENT ON COLUMN fetch_log.error IS 'Why the fetch did not land, naming the source and the cause; NULL when it landed.';

COMMENT ON TABLE quarantine IS 'Fetched bodies that failed parsing or validation, with the reasons; nothing from them landed in any history table.';
COMMENT ON COLUMN quarantine.quarantine_id IS 'Surrogate key.';
COMMENT ON COLUMN quarantine.source_id IS 'Source whose batch was refused.';
COMMENT ON COLUMN quarantine.fetch_id IS 'fetch_log row of the refused fetch.';
COMMENT ON COLUMN quarantine.url IS 'URL requested.';
COMMENT ON COLUMN quarantine.fetched_at IS 'When the refused body was fetched (UTC).';
COMMENT ON COLUMN quarantine.sha256 IS 'SHA-256 of raw_body.';
COMMENT ON COLUMN quarantine.parser_version IS 'Adapter and version that refused it.';
COMMENT ON COLUMN quarantine.stage IS 'parse (the page could not be read) or validate (records or the batch failed pydantic or Great Expectations).';
COMMENT ON COLUMN quarantine.reasons IS 'Each failure: the typed parse error, or each failed expectation with its unexpected count and examples.';
COMMENT ON COLUMN quarantine.raw_body IS 'The response body exactly as received (decompressed), for inspection and reparse.';
COMMENT ON COLUMN quarantine.quarantined_at IS 'When the batch was refused (UTC).';

COMMENT ON VIEW source_freshness IS 'Per source: the latest attempt, the latest good fetch (landed or unchanged), and the latest outcome and error.';
COMMENT ON COLUMN source_freshness.source_id IS 'Source id.';
COMMENT ON COLUMN source_freshness.last_attempt_at IS 'Latest fetch attempt (UTC).';
COMMENT ON COLUMN source_freshness.last_good_at IS 'Latest fetch that landed or confirmed unchanged rows (UTC).';
COMMENT ON COLUMN source_freshness.last_outcome IS 'Outcome of the latest attempt.';
COMMENT ON COLUMN source_freshness.last_error IS 'Error of the latest attempt, if any.';
