"""Every kind of data ratecard holds: one line each, in the order their tables and views are made (a view may read
an earlier kind's views).

A kind is a folder of pipelines/ holding its records, suite, landing and SQL; its `__init__` declares its part of
the warehouse's schema (`SCHEMA`). Importing pipelines imports this registry, which hands every part to the
warehouse (warehouse.sql_files), so no generic module names a kind.
"""

from __future__ import annotations

from pipelines import across_kinds, aws, fx, gpu, pilots, pricelist, specs
from warehouse.sql_files import declare

KIND_FOLDERS = (
    aws,  # AWS instance prices from the product and Capacity Blocks pages
    fx,  # ECB reference rates
    gpu,  # GPU-provider listings, converted with the FX rates
    pricelist,  # AWS price-list files: regional offers, Savings Plans, spot
    specs,  # accelerator specifications, launch dates, vendor claims, the NVIDIA reference
    pilots,  # user input: pilots, migration plans, traffic profiles
    across_kinds,  # views over the kinds above: the change feed, value per unit
)

declare(folder.SCHEMA for folder in KIND_FOLDERS)
