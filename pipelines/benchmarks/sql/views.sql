-- The current vendor benchmarks, each marked as a claim: shown beside a decision as "vendor benchmark, not your
-- pilot", never joined into a price, a cost or a verdict.
CREATE OR REPLACE VIEW vendor_benchmarks AS
SELECT model, instance_type, regexp_extract(instance_type, '^([a-z]+[0-9]+[a-z]*)\.', 1) AS instance_family,
       neuron_release, conditions, framework, task, application_type, batch_size, tp_degree, input_length,
       output_length, sequence_length, model_data_type, throughput, throughput_unit, ttft_p50_ms, ttft_p99_ms,
       tpot_p50_ms, tpot_p99_ms, latency_p50_ms, latency_p99_ms, nodes, topology, global_batch_size, optimizer,
       dp_degree, token_latency_p50_ms, token_latency_p99_ms, image_size, mfu_pct, compute_cost_per_token_tflops,
       neuron_cores, model_details,
       coalesce(work, 'inference') AS work,  -- rows landed before training tables were read are all inference
       true AS is_claim, 'vendor benchmark, not your pilot' AS claim_note, instance_printed, source_id,
       source_url, fetched_at, sha256, parser_version, fetch_id, valid_from
FROM vendor_benchmark_history WHERE valid_to IS NULL;
