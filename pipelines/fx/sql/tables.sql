-- ECB euro reference rates: facts by currency and date; an ECB correction closes the old row (valid_to).

CREATE TABLE IF NOT EXISTS fx_rates (
    currency        VARCHAR NOT NULL,
    rate_date       DATE NOT NULL,
    units_per_eur   DECIMAL(18, 6) NOT NULL CHECK (units_per_eur > 0),
    valid_to        TIMESTAMPTZ,
    fetch_id        BIGINT NOT NULL,
    source_url      VARCHAR NOT NULL,
    fetched_at      TIMESTAMPTZ NOT NULL,
    sha256          VARCHAR NOT NULL,
    parser_version  VARCHAR NOT NULL
);

-- Files made before valid_to existed: every rate they hold is current.
ALTER TABLE fx_rates ADD COLUMN IF NOT EXISTS valid_to TIMESTAMPTZ;
