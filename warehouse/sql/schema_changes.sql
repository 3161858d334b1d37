-- What the change-feed webhook was sent after each publish. Never the webhook's URL: it is a secret.

CREATE TABLE IF NOT EXISTS notify_log (
    notified_at       TIMESTAMPTZ NOT NULL,
    through_fetch_id  BIGINT NOT NULL,
    changes_sent      INTEGER NOT NULL,
    outcome           VARCHAR NOT NULL CHECK (outcome IN ('posted', 'nothing_over_threshold', 'failed')),
    attempts          INTEGER NOT NULL,
    error             VARCHAR
);

COMMENT ON TABLE notify_log IS 'One row per change-feed notification after a publish: how many price_changes rows went to the webhook and how it answered. The webhook URL is never stored.';
COMMENT ON COLUMN notify_log.notified_at IS 'When the notification ran (UTC).';
COMMENT ON COLUMN notify_log.through_fetch_id IS 'Highest fetch_log.fetch_id considered: a posted or empty run moves the feed past it; a failed run does not, so the next publish sends those changes again.';
COMMENT ON COLUMN notify_log.changes_sent IS 'price_changes rows over the threshold in the message (0 when nothing was over it).';
COMMENT ON COLUMN notify_log.outcome IS 'posted, nothing_over_threshold (no POST made) or failed (both attempts failed; the refresh still succeeded).';
COMMENT ON COLUMN notify_log.attempts IS 'POST attempts made (at most 2: one retry).';
COMMENT ON COLUMN notify_log.error IS 'Why the last attempt failed (HTTP status or transport error), with the URL removed; NULL on success.';
