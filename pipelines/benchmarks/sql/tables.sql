-- Vendor benchmarks: the throughput and latency figures the vendor publishes, versioned per source like the
-- specifications (valid_from / valid_to). Claims, never inputs to a computed figure.

CREATE TABLE IF NOT EXISTS vendor_benchmark_history (
    source_id          VARCHAR NOT NULL,
    model              VARCHAR NOT NULL,
    instance_type      VARCHAR NOT NULL,
    neuron_release     VARCHAR NOT NULL,
    conditions         VARCHAR NOT NULL,
    instance_printed   VARCHAR NOT NULL,
    framework          VARCHAR,
    task               VARCHAR,
    application_type   VARCHAR,
    batch_size         BIGINT,
    tp_degree          BIGINT,
    input_length       BIGINT,
    output_length      BIGINT,
    model_data_type    VARCHAR,
    throughput         DECIMAL(28, 10) NOT NULL CHECK (throughput > 0),
    throughput_unit    VARCHAR NOT NULL,
    ttft_p50_ms        DECIMAL(28, 10),
    ttft_p99_ms        DECIMAL(28, 10),
    tpot_p50_ms        DECIMAL(28, 10),
    tpot_p99_ms        DECIMAL(28, 10),
    attributes_hash    VARCHAR NOT NULL,
    valid_from         TIMESTAMPTZ NOT NULL,
    valid_to           TIMESTAMPTZ,
    fetch_id           BIGINT NOT NULL,
    source_url         VARCHAR NOT NULL,
    fetched_at         TIMESTAMPTZ NOT NULL,
    sha256             VARCHAR NOT NULL,
    parser_version     VARCHAR NOT NULL
);

-- An encoder's sequence length and request latencies, read since encoder tables are: NULL on rows landed before.
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS sequence_length BIGINT;
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS latency_p50_ms DECIMAL(28, 10);
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS latency_p99_ms DECIMAL(28, 10);
-- A training run's scale and optimizer, read since training tables are: NULL on rows landed before.
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS nodes BIGINT;
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS topology VARCHAR;
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS global_batch_size BIGINT;
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS optimizer VARCHAR;
-- Whether a row is a training run or an inference one, read since training tables are: NULL on rows landed before,
-- which were all inference tables.
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS work VARCHAR;
-- An encoder-decoder's data-parallel degree and latency per token, read since those tables are: NULL on rows landed
-- before.
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS dp_degree BIGINT;
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS token_latency_p50_ms DECIMAL(28, 10);
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS token_latency_p99_ms DECIMAL(28, 10);
-- A vision model's image size, read since vision tables are: NULL on rows landed before.
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS image_size VARCHAR;
-- A training run's MFU and compute cost per token, read since the NLP training table is: NULL on rows landed before.
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS mfu_pct DECIMAL(28, 10);
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS compute_cost_per_token_tflops DECIMAL(28, 10);
-- An Inf1 run's NeuronCores and model details, read since the Inf1 tables are: NULL on rows landed before.
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS neuron_cores BIGINT;
ALTER TABLE vendor_benchmark_history ADD COLUMN IF NOT EXISTS model_details VARCHAR;
