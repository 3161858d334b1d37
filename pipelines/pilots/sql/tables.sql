-- Pilot measurements and migration plans: user input, append-only. A later row for the same key supersedes an
-- earlier one in the views; nothing is ever updated or deleted, so every figure a view printed stays traceable.

CREATE TABLE IF NOT EXISTS pilot_inputs (
    input_id        BIGINT PRIMARY KEY,
    recorded_at     TIMESTAMPTZ NOT NULL,
    recorded_by     VARCHAR NOT NULL,
    origin          VARCHAR NOT NULL,
    content_sha256  VARCHAR NOT NULL,
    input_kind      VARCHAR NOT NULL CHECK (input_kind IN ('pilot', 'plan', 'traffic', 'training')),
    row_count       INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS pilot_result_history (
    input_id        BIGINT NOT NULL,
    row_number      INTEGER NOT NULL,
    workload        VARCHAR NOT NULL,
    offering_source VARCHAR NOT NULL CHECK (offering_source IN ('aws_instance', 'gpu_listing')),
    provider        VARCHAR,
    offering        VARCHAR NOT NULL,
    region          VARCHAR,
    price_kind      VARCHAR NOT NULL,
    work_unit       VARCHAR NOT NULL CHECK (work_unit IN ('tokens', 'steps', 'requests')),
    units_per_hour  DECIMAL(24, 3) NOT NULL CHECK (units_per_hour > 0),
    quality_passed  BOOLEAN NOT NULL,
    measured_on     DATE NOT NULL,
    note            VARCHAR,
    latency_target_ms DECIMAL(12, 3),
    p95_latency_ms  DECIMAL(12, 3),
    input_units     BIGINT,
    output_units    BIGINT,
    concurrency     INTEGER,
    billed_hours    DECIMAL(18, 6),
    busy_hours      DECIMAL(18, 6),
    accepted_outputs BIGINT,
    purchase_option VARCHAR,
    offering_class  VARCHAR,
    framework_path  VARCHAR,
    PRIMARY KEY (input_id, row_number)
);

-- The conditions a pilot ran under and what its window billed (all optional; older rows have NULL).
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS latency_target_ms DECIMAL(12, 3);
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS p95_latency_ms DECIMAL(12, 3);
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS input_units BIGINT;
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS output_units BIGINT;
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS concurrency INTEGER;
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS billed_hours DECIMAL(18, 6);
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS busy_hours DECIMAL(18, 6);
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS accepted_outputs BIGINT;
-- The terms of a reserved or Savings Plan price (older rows: NULL, as none was priced on such a kind alone).
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS purchase_option VARCHAR;
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS offering_class VARCHAR;
ALTER TABLE pilot_result_history ADD COLUMN IF NOT EXISTS framework_path VARCHAR;

CREATE TABLE IF NOT EXISTS migration_plan_history (
    input_id                BIGINT NOT NULL PRIMARY KEY,
    workload                VARCHAR NOT NULL,
    baseline_source         VARCHAR NOT NULL CHECK (baseline_source IN ('aws_instance', 'gpu_listing')),
    baseline_provider       VARCHAR,
    baseline_offering       VARCHAR NOT NULL,
    baseline_region         VARCHAR,
    baseline_price_kind     VARCHAR NOT NULL,
    one_time_cost_usd       DECIMAL(18, 2) NOT NULL CHECK (one_time_cost_usd >= 0),
    monthly_maintenance_usd DECIMAL(18, 2) NOT NULL CHECK (monthly_maintenance_usd >= 0),
    monthly_volume          DECIMAL(24, 0) NOT NULL CHECK (monthly_volume > 0),
    lifetime_months         INTEGER NOT NULL CHECK (lifetime_months > 0),
    note                    VARCHAR
);

-- A workload's traffic shape (ratecard pilot traffic): what deployment_costs bills always-on and serverless
-- candidates for. Append-only like the pilots; the latest profile per workload is current.
CREATE TABLE IF NOT EXISTS traffic_profile_history (
    input_id              BIGINT NOT NULL,
    row_number            INTEGER NOT NULL,
    workload              VARCHAR NOT NULL,
    monthly_units         DECIMAL(24, 0) NOT NULL CHECK (monthly_units >= 0),
    active_hours_per_day  DECIMAL(6, 3) NOT NULL CHECK (active_hours_per_day >= 0 AND active_hours_per_day <= 24),
    peak_units_per_hour   DECIMAL(24, 3) NOT NULL CHECK (peak_units_per_hour >= 0),
    days_per_month        DECIMAL(5, 2) NOT NULL CHECK (days_per_month > 0 AND days_per_month <= 31),
    cold_start_seconds    INTEGER NOT NULL CHECK (cold_start_seconds >= 0),
    note                  VARCHAR,
    PRIMARY KEY (input_id, row_number)
);

-- A training run to the target quality (ratecard pilot training): its hours, each overhead apart, and the
-- conditions that decide what it may be compared with. Append-only like the pilots; the latest run per key is current.
CREATE TABLE IF NOT EXISTS training_run_history (
    input_id           BIGINT NOT NULL,
    row_number         INTEGER NOT NULL,
    workload           VARCHAR NOT NULL,
    offering_source    VARCHAR NOT NULL CHECK (offering_source IN ('aws_instance', 'gpu_listing')),
    provider           VARCHAR,
    offering           VARCHAR NOT NULL,
    region             VARCHAR,
    price_kind         VARCHAR NOT NULL,
    purchase_option    VARCHAR,
    offering_class     VARCHAR,
    instances          INTEGER NOT NULL CHECK (instances >= 1),
    wall_hours         DECIMAL(12, 3) NOT NULL CHECK (wall_hours > 0),
    compile_hours      DECIMAL(12, 3) NOT NULL CHECK (compile_hours >= 0),
    warmup_hours       DECIMAL(12, 3) NOT NULL CHECK (warmup_hours >= 0),
    interrupted_hours  DECIMAL(12, 3) CHECK (interrupted_hours >= 0),
    recovery_hours     DECIMAL(12, 3) NOT NULL CHECK (recovery_hours >= 0),
    quality_reached    BOOLEAN NOT NULL,
    target_metric      VARCHAR NOT NULL,
    dataset            VARCHAR NOT NULL,
    evaluation         VARCHAR NOT NULL,
    stopping_criterion VARCHAR NOT NULL,
    framework_path     VARCHAR NOT NULL,
    measured_on        DATE NOT NULL,
    note               VARCHAR,
    PRIMARY KEY (input_id, row_number)
);

-- A plan's baseline terms (a reserved or Savings Plan kind: its purchase option and offering class), kept since plans
-- name them: NULL on a plan landed before, or on a kind sold without terms.
ALTER TABLE migration_plan_history ADD COLUMN IF NOT EXISTS baseline_purchase_option VARCHAR;
ALTER TABLE migration_plan_history ADD COLUMN IF NOT EXISTS baseline_offering_class VARCHAR;
