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

-- The changes a notification has claimed to post: one notifier posts each, also when two run at once on a lake.
CREATE TABLE IF NOT EXISTS notify_claims (
    change_key  VARCHAR NOT NULL PRIMARY KEY,
    claim_id    VARCHAR NOT NULL,
    claimed_at  TIMESTAMPTZ NOT NULL
);

-- One row, updated by every claim so that two claims at once conflict and one runs again after the other.
CREATE TABLE IF NOT EXISTS notify_turn (
    claim_id    VARCHAR,
    claimed_at  TIMESTAMPTZ
);
INSERT INTO notify_turn SELECT NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM notify_turn);

COMMENT ON TABLE notify_claims IS 'One row per price_changes row a change-feed notification took on to post (posted, or being posted): a claim is made in a transaction that conflicts with any other claim, so two notifications at once post each change once. A failed POST deletes its claims, so the next publish sends those changes again.';
COMMENT ON COLUMN notify_claims.change_key IS 'MD5 of the change''s identity in price_changes: change, family, source_id, offering, price_kind, region, changed_at and fetch_id. Sent with the change to the webhook as change_key.';
COMMENT ON COLUMN notify_claims.claim_id IS 'The notification run that claimed it (random).';
COMMENT ON COLUMN notify_claims.claimed_at IS 'When it was claimed (UTC).';
COMMENT ON TABLE notify_turn IS 'A single row every change-feed claim updates first, so that two claims at once conflict (a DuckLake keeps no keys and lets concurrent inserts through) and the later one reads the earlier one''s claims.';
COMMENT ON COLUMN notify_turn.claim_id IS 'The latest claim''s run; NULL before any.';
COMMENT ON COLUMN notify_turn.claimed_at IS 'When the latest claim was made (UTC); NULL before any.';
