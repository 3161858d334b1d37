"""Printed memory units and exact money rounding, shared by every kind's records: GiB by a unit's definition,
the per-accelerator rate at full precision and its 4-dp half-up column."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

# Full precision for the derived accelerator rate: exact for any divisor of the form 2^a·5^b (1, 2, 4, 8,
# 16, 6 is not), otherwise rounded half-up at the 18th decimal place.
FULL_PRECISION = Decimal("1e-18")


FOUR_DP = Decimal("0.0001")


GIB_PRECISION = Decimal("0.000001")


GIB = Decimal(2**30)


# Bytes per printed memory unit, by definition (SI for GB/TB, IEC for GiB/TiB).
BYTES_PER_UNIT = {
    "GB": Decimal(10**9),
    "TB": Decimal(10**12),
    "GiB": Decimal(2**30),
    "TiB": Decimal(2**40),
    "MB": Decimal(10**6),
    "MiB": Decimal(2**20),
}


def to_gib(value: Decimal, unit: str) -> Decimal:
    """Convert a printed memory figure to GiB by the unit's definition (1 GB = 10^9 bytes)."""
    return (value * BYTES_PER_UNIT[unit] / GIB).quantize(GIB_PRECISION, rounding=ROUND_HALF_UP)


def gib_of(value: Decimal | None, unit: str | None) -> Decimal | None:
    """A printed memory figure in GiB, or None when the figure or its unit is missing."""
    return None if value is None or unit is None else to_gib(value, unit)


def per_accelerator(usd_per_instance_hour: Decimal, accelerator_count: int) -> Decimal:
    return (usd_per_instance_hour / accelerator_count).quantize(FULL_PRECISION, rounding=ROUND_HALF_UP)


def half_up_4dp(value: Decimal) -> Decimal:
    return value.quantize(FOUR_DP, rounding=ROUND_HALF_UP)
