"""AWS's own price-list files: the EC2 region index, the regional offer CSVs and the public spot feed.

Modules: `region_index` (which regional files exist, and their version stamps), `offer_csv` (one regional CSV
read in DuckDB into a `PriceListBatch`), `spot` (the spot feed), `families` (the instance-family allowlist) and
`catalog` (ratecard's own accelerator counts and memory, cross-checked against the price list's `gpu`).
"""
