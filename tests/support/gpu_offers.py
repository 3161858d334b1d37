"""Helpers the GPU adapter tests share: an offer as a comparable tuple, the recorded offers as such tuples, and a soup
rendered back to bytes."""

from __future__ import annotations

import json
from decimal import Decimal

from bs4 import BeautifulSoup

from pipelines.gpu.records import GpuBatch
from tests.support.paths import TESTS

EXPECTED_FIGURES = TESTS / "sources" / "expected"


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


def recorded_offer_rows(source_id: str) -> list[tuple]:
    """The source's offers as `offer_rows` gives them, read from its recorded figures
    (tests/sources/expected/<source id>.jsonl), so an adapter's tests and its source's test share one list."""
    out = []
    for line in (EXPECTED_FIGURES / f"{source_id}.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["unit"] != source_id or record["field"] != "offers" or "item" not in record:
            continue
        o = record["item"]
        memory = o["gpu_memory_gb_printed"]
        out.append(
            (
                o["listing"],
                o["gpu_name"],
                o["gpu_count"],
                o["price_kind"],
                Decimal(o["amount"]),
                o["currency"],
                o["price_per"],
                o["period"],
                o["stock_status"],
                o["region"],
                o["offer_count"],
                None if memory is None else Decimal(memory),
            )
        )
    return out
