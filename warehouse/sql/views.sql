-- Latest outcome per source: what a dashboard shows as freshness.
CREATE OR REPLACE VIEW source_freshness AS
SELECT source_id,
       max(fetched_at) AS last_attempt_at,
       max(fetched_at) FILTER (WHERE outcome IN ('landed', 'unchanged')) AS last_good_at,
       -- The latest by fetch time: a capture landed by a backfill is logged at the (earlier) time it was captured.
       arg_max(outcome, (fetched_at, fetch_id)) AS last_outcome,
       arg_max(error, (fetched_at, fetch_id)) AS last_error
FROM fetch_log
GROUP BY source_id;
