"""Helpers the GPU adapter tests share: an offer as a comparable tuple, and a soup rendered back to bytes."""

from __future__ import annotations

from decimal import Decimal

from bs4 import BeautifulSoup

from pipelines.gpu.records import GpuBatch


def offer_rows(batch: GpuBatch) -> list[tuple]:
    """Every field of every offer, money asserted to be Decimal, in batch order."""
    out = []
    for o in batch.offers:
        assert isinstance(o.amount, Decimal)
        out.append(
            (
                o.listing,
                o.gpu_name,
                o.gpu_count,
                o.price_kind.value,
                o.amount,
                o.currency,
                o.price_per.value,
                o.period.value,
                o.stock_status.value,
                o.region,
                o.offer_count,
                o.gpu_memory_gb_printed,
            )
        )
    return out


def render(page: BeautifulSoup) -> bytes:
    return str(page).encode("utf-8")
