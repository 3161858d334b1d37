"""The value page: USD per dense PFLOP-hour by number format and per GiB of accelerator memory-hour, Trainium,
Inferentia, Google TPUs and NVIDIA GPUs side by side (`accelerator_value`), then every priced row under the page's
filters.

Dense figures only (a sparse figure is never divided into a price); a figure the specs do not state stays empty.
All figures at 4 places, half up, from DuckDB's DECIMALs.
"""

from __future__ import annotations

from pipelines.dashboard.figures import TIME, four_places, trimmed

VENDOR = (
    "CASE spec_source WHEN 'neuron_docs' THEN 'AWS' WHEN 'google_tpu_docs' THEN 'Google' "
    "WHEN 'nvidia_reference' THEN 'NVIDIA' END"
)
ON_DEMAND = "price_kind_family(price_kind) = 'on_demand'"

# Per accelerator, its cheapest on-demand figure in each unit (each may come from another offer: a listing with
# more memory per GPU can be cheaper per GiB), and the offer cheapest per accelerator-hour. Cheapest per BF16
# PFLOP first; an accelerator whose specs state no dense figure comes last.
SIDE_BY_SIDE = f"""
SELECT {VENDOR} AS vendor, accelerator_spec AS accelerator, count(*) AS offers,
       {four_places("min(usd_per_accelerator_hour)")} AS usd_per_accel_hour,
       arg_min(seller || ' ' || offering, (usd_per_accelerator_hour, seller, offering)) AS cheapest_offer,
       {four_places("min(usd_per_gib_memory_hour)")} AS usd_per_gib_hour,
       {trimmed("min(dense_bf16_tflops)", 2)} AS dense_bf16_tflops,
       {four_places("min(usd_per_dense_pflop_hour_bf16)")} AS usd_per_dense_pflop_hour_bf16,
       coalesce(min(fp8_format), '') AS fp8_format, {trimmed("min(dense_fp8_tflops)", 2)} AS dense_fp8_tflops,
       {four_places("min(usd_per_dense_pflop_hour_fp8)")} AS usd_per_dense_pflop_hour_fp8
FROM accelerator_value
WHERE {ON_DEMAND} AND accelerator_spec IS NOT NULL
GROUP BY ALL
ORDER BY min(usd_per_dense_pflop_hour_bf16) NULLS LAST, min(usd_per_dense_pflop_hour_fp8) NULLS LAST, accelerator
"""

# Every priced row; the first column is for the price kind filter. Cheapest per accelerator-hour first, ties by
# seller, offering, region and kind, so the order is the same every time.
ROWS = f"""
SELECT price_kind_family(price_kind) AS price_kind_family, seller AS provider, offering,
       coalesce(accelerator_spec, accelerator_printed, 'unknown') AS accelerator, price_kind,
       concat_ws(' ', lease_years || '-year', lower(purchase_option), lower(offering_class)) AS terms,
       coalesce(region, 'not stated') AS region, {four_places("usd_per_accelerator_hour")} AS usd_per_accel_hour,
       {trimmed("memory_gib_per_accelerator", 2)} AS memory_gib, {four_places("usd_per_gib_memory_hour")}
           AS usd_per_gib_hour,
       {four_places("usd_per_dense_pflop_hour_bf16")} AS usd_per_dense_pflop_hour_bf16,
       coalesce(fp8_format, '') AS fp8_format,
       {four_places("usd_per_dense_pflop_hour_fp8")} AS usd_per_dense_pflop_hour_fp8,
       {TIME.format(col="fetched_at")} AS fetched_at, source_url
FROM accelerator_value
ORDER BY usd_per_accelerator_hour, seller, offering, region NULLS FIRST, price_kind, lease_years NULLS FIRST,
         purchase_option NULLS FIRST, offering_class NULLS FIRST, source_url
"""
