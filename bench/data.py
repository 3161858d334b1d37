"""Synthetic price rows for the PRICES table, generated column-wise in Arrow (no pydantic, no floats).

Money is generated as integer counts of the column's smallest unit (micro-dollars for DECIMAL(18,6)) and
turned into Arrow decimal128 arrays straight from those integers, so every value is exact. The derived
columns follow pipelines.aws.records exactly: accelerator counts are powers of two, so price / count is exact at
18 places; the 4-dp figure rounds half-up. `check_against_records` verifies that on a sample with the
project's own Decimal functions.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np
import pyarrow as pa

from pipelines.aws.landing import PRICES
from schemas.units import half_up_4dp, per_accelerator

PRICE_KINDS = ("on_demand", "reserved_1y", "reserved_3y", "capacity_block")
# Index 0 is "no region stated" (NULL): the key compares NULL-safely, so the bench exercises that path.
REGIONS = (
    None,
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "ca-central-1",
    "sa-east-1",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "eu-central-1",
    "eu-central-2",
    "eu-north-1",
    "eu-south-1",
    "eu-south-2",
    "ap-south-1",
    "ap-south-2",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-northeast-3",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-3",
    "ap-east-1",
    "me-central-1",
)
ACCELERATOR_COUNTS = (1, 2, 4, 8, 16)  # 10^4 and 10^12 divide by each: the per-accelerator rate is exact
KEYS_PER_TYPE = len(PRICE_KINDS) * len(REGIONS)  # 100
PRINTED_3DP = Decimal("0.001")
CENT = Decimal("0.01")

ATTRIBUTE_SCHEMA = pa.schema(list(PRICES.attribute_fields))


def decimal_array(unscaled: np.ndarray, precision: int, scale: int, mask: np.ndarray | None = None) -> pa.Array:
    """decimal128 from integer unscaled values (value = unscaled * 10^-scale), built from raw 128-bit words."""
    unscaled = np.ascontiguousarray(unscaled, dtype=np.int64)
    words = np.empty((len(unscaled), 2), dtype=np.int64)
    words[:, 0] = unscaled
    words[:, 1] = np.where(unscaled < 0, -1, 0)  # sign-extend to 128 bits
    validity = None
    null_count = 0
    if mask is not None:  # mask True = NULL
        validity = pa.py_buffer(np.packbits(~mask, bitorder="little").tobytes())
        null_count = int(mask.sum())
    arr = pa.Array.from_buffers(
        pa.decimal128(precision, scale), len(unscaled), [validity, pa.py_buffer(words.tobytes())], null_count=null_count
    )
    arr.validate(full=True)
    return arr


def instance_type_names(n_types: int) -> list[str]:
    return [f"gen{t // 16}.{t % 16 + 1}xlarge" for t in range(n_types)]


def key_indices(n_types: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (instance type, price kind, region) combination once: n_types * 100 keys."""
    key = np.arange(n_types * KEYS_PER_TYPE, dtype=np.int64)
    type_idx = key // KEYS_PER_TYPE
    kind_idx = (key // len(REGIONS)) % len(PRICE_KINDS)
    region_idx = key % len(REGIONS)
    return type_idx, kind_idx, region_idx


def random_price_micro(rng: np.random.Generator, n: int) -> np.ndarray:
    """USD per instance-hour in micro-dollars, 4 significant decimals: $0.1000 – $999.9999."""
    return rng.integers(1_000, 10_000_000, size=n, dtype=np.int64) * 100


def price_attributes(
    type_idx: np.ndarray, kind_idx: np.ndarray, region_idx: np.ndarray, price_micro: np.ndarray, type_names: list[str]
) -> dict[str, pa.Array]:
    """The ten PRICES attribute columns, typed exactly as PRICES.attribute_fields."""
    count = np.asarray(ACCELERATOR_COUNTS, dtype=np.int64)[type_idx % len(ACCELERATOR_COUNTS)]
    # price / count at scale 10 is an integer: micro-dollars * (10^4 / count)
    per_acc_e10 = price_micro * (10_000 // count)
    q, r = np.divmod(per_acc_e10, 10**6)
    per_acc_4dp = q + (r >= 500_000)  # half-up at the 4th decimal (values are positive)
    q3, r3 = np.divmod(per_acc_e10, 10**7)
    printed_e6 = (q3 + (r3 >= 5_000_000)) * 1_000  # capacity blocks print the rate at 3 decimals
    is_cb = kind_idx == PRICE_KINDS.index("capacity_block")
    region_null = region_idx == 0
    return {
        "instance_type": pa.array(type_names).take(pa.array(type_idx)),
        "price_kind": pa.array(list(PRICE_KINDS)).take(pa.array(kind_idx)),
        "region": pa.array(list(REGIONS), pa.string()).take(pa.array(region_idx)),
        "region_stated": pa.array(~region_null),
        "usd_per_instance_hour": decimal_array(price_micro, 18, 6),
        "accelerator_count": pa.array(count.astype(np.int32)),
        "usd_per_accelerator_hour": decimal_array(per_acc_e10, 24, 10).cast(pa.decimal128(38, 18)),
        "usd_per_accelerator_hour_4dp": decimal_array(per_acc_4dp, 18, 4),
        "printed_usd_per_accelerator_hour": decimal_array(printed_e6, 18, 6, mask=~is_cb),
        # The generated region names are no AWS locations, so no region code (as landing would derive).
        "region_code": pa.nulls(len(type_idx), pa.string()),
    }


def snapshot_rows(n_types: int, seed: int) -> list[dict[str, Any]]:
    """One source's full snapshot as the dicts land_batch hands to snapshot_table (Decimals, not floats)."""
    rng = np.random.default_rng(seed)
    type_idx, kind_idx, region_idx = key_indices(n_types)
    cols = price_attributes(
        type_idx, kind_idx, region_idx, random_price_micro(rng, len(type_idx)), instance_type_names(n_types)
    )
    return pa.table(cols, schema=ATTRIBUTE_SCHEMA).to_pylist()


def reprice(row: dict[str, Any], new_price: Decimal) -> dict[str, Any]:
    """A row with a new instance price and its derived columns recomputed by pipelines.aws.records."""
    per_acc = per_accelerator(new_price, row["accelerator_count"])
    printed = row["printed_usd_per_accelerator_hour"]
    return {
        **row,
        "usd_per_instance_hour": new_price,
        "usd_per_accelerator_hour": per_acc,
        "usd_per_accelerator_hour_4dp": half_up_4dp(per_acc),
        "printed_usd_per_accelerator_hour": (
            per_acc.quantize(PRINTED_3DP, rounding=ROUND_HALF_UP) if printed is not None else None
        ),
    }


def check_against_records(rows: list[dict[str, Any]], limit: int = 2_000) -> None:
    """The generated derived columns equal what pipelines.aws.records computes (fail loudly otherwise)."""
    for row in rows[:limit]:
        expected = reprice(row, row["usd_per_instance_hour"])
        for column in ("usd_per_accelerator_hour", "usd_per_accelerator_hour_4dp", "printed_usd_per_accelerator_hour"):
            if expected[column] != row[column]:
                raise AssertionError(f"generated {column} {row[column]} != records {expected[column]}")
        if not isinstance(row["usd_per_instance_hour"], Decimal):
            raise AssertionError("money must be Decimal")


# ---- GPU listings (gpu_listing_history attributes) -----------------------------------------------------------

GPU_PROVIDERS = ("Lambda", "RunPod", "Vast.ai", "CoreWeave", "Hyperstack", "LeaderGPU", "Paperspace", "FluidStack")
EUR_PROVIDER = "LeaderGPU"  # prices in EUR, converted at a fixed rate
USD_PER_EUR_E10 = 10_850_000_000  # 1.0850000000 at DECIMAL(20, 10)
GPU_MODELS = ("H100", "H200", "A100", "A10", "L40S", "L4", "RTX 4090", "RTX A6000", "V100", None)  # None: unrecognised
GPU_COUNTS = (1, 2, 4, 8)
GPU_PRICE_KINDS = ("on_demand", "on_demand", "on_demand", "spot", "community")
STOCK = ("in_stock", "in_stock", "sold_out", "unknown")


def gpu_price_micro(rng: np.random.Generator, n: int) -> np.ndarray:
    """USD (or EUR) per GPU-hour in micro-units, 4 significant decimals: 0.1000 – 9.9999."""
    return rng.integers(1_000, 100_000, size=n, dtype=np.int64) * 100


def gpu_listing_attributes(price_micro: np.ndarray, fx_rate_date: Any) -> dict[str, pa.Array]:
    """The GPU_LISTINGS attribute columns for listings 0..n-1 (listing i always has the same provider, model,
    count, kind, region and stock); amounts per GPU-hour, EUR ones converted exactly at a fixed rate."""
    n = len(price_micro)
    i = np.arange(n, dtype=np.int64)
    provider_idx = i % len(GPU_PROVIDERS)
    model_idx = (i // len(GPU_PROVIDERS)) % len(GPU_MODELS)
    is_eur = provider_idx == GPU_PROVIDERS.index(EUR_PROVIDER)
    usd_e10 = np.where(is_eur, price_micro * (USD_PER_EUR_E10 // 1_000_000), price_micro * 10_000)
    q, r = np.divmod(usd_e10, 10**6)
    model_names = [m or "Obscure GPU" for m in GPU_MODELS]
    return {
        "provider": pa.array(list(GPU_PROVIDERS)).take(pa.array(provider_idx)),
        "listing": pa.array([f"listing {k}" for k in range(n)]),
        "gpu_name": pa.array([f"NVIDIA {m}" for m in model_names]).take(pa.array(model_idx)),
        "gpu_model": pa.array(list(GPU_MODELS), pa.string()).take(pa.array(model_idx)),
        "gpu_variant": pa.nulls(n, pa.string()),
        "gpu_memory_gib": decimal_array(np.full(n, 74_505_806), 18, 6),  # 80 GB in GiB
        "gpu_count": pa.array(np.asarray(GPU_COUNTS, dtype=np.int32)[i % len(GPU_COUNTS)]),
        "price_kind": pa.array(list(GPU_PRICE_KINDS)).take(pa.array(i % len(GPU_PRICE_KINDS))),
        "original_amount": decimal_array(price_micro, 18, 6),
        "original_currency": pa.array(np.where(is_eur, "EUR", "USD").tolist()),
        "original_unit": pa.array(["per GPU-hour"] * n),
        "price_per": pa.array(["gpu"] * n),
        "period": pa.array(["hour"] * n),
        "usd_per_currency_unit": decimal_array(np.where(is_eur, USD_PER_EUR_E10, 10**10), 20, 10),
        "fx_rate_date": pa.array([fx_rate_date if e else None for e in is_eur.tolist()], pa.date32()),
        "fx_rate_stale": pa.array([False if e else None for e in is_eur.tolist()], pa.bool_()),
        "usd_per_gpu_hour": decimal_array(usd_e10, 24, 10).cast(pa.decimal128(38, 18)),
        "usd_per_gpu_hour_4dp": decimal_array(q + (r >= 500_000), 18, 4),
        "stock_status": pa.array(list(STOCK)).take(pa.array((i // 3) % len(STOCK))),
        "region": pa.array([None, "us-east", "eu-central"], pa.string()).take(pa.array(i % 3)),
        "offer_count": pa.array(np.ones(n, dtype=np.int32)),
        "gpu_memory_printed": decimal_array(np.full(n, 80_000_000), 18, 6),  # 80 GB as printed
        "gpu_memory_unit": pa.array(["GB"] * n),
        "gpu_memory_from_catalog": pa.array([False] * n, pa.bool_()),
        # Hourly listings: the serverless columns are NULL.
        "usd_per_gpu_second": pa.nulls(n, pa.decimal128(38, 18)),
        "billing_increment_seconds": pa.nulls(n, pa.int32()),
        "idle_timeout_seconds": pa.nulls(n, pa.int32()),
        "cold_start_billed": pa.nulls(n, pa.bool_()),
        "billing_terms": pa.nulls(n, pa.string()),
        "billing_terms_url": pa.nulls(n, pa.string()),
    }


def spec_rows(n_types: int) -> list[dict[str, Any]]:
    """One spec per instance type, as aws_snapshots hands them over (for the as-of join of prices to specs)."""
    return [
        {
            "instance_type": name,
            "family": name.split(".")[0],
            "accelerator": "Trainium",
            "accelerator_count": ACCELERATOR_COUNTS[t % len(ACCELERATOR_COUNTS)],
            "accelerator_memory_value": Decimal(32 * ACCELERATOR_COUNTS[t % len(ACCELERATOR_COUNTS)]),
            "accelerator_memory_unit": "GB",
            "accelerator_memory_gib": None,
            "accelerator_memory_derived": False,
            "accelerator_memory_basis": None,
            "vcpus": 8 * ACCELERATOR_COUNTS[t % len(ACCELERATOR_COUNTS)],
            "host_memory_gib": Decimal(64 * ACCELERATOR_COUNTS[t % len(ACCELERATOR_COUNTS)]),
        }
        for t, name in enumerate(instance_type_names(n_types))
    ]
