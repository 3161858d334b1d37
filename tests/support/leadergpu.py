"""LeaderGPU's sample as tests read it (the XHR JSON whose `matchesHtml` carries the server cards): the exact
offers it yields, and helpers that alter it. Shared by the adapter's tests and the source's own file."""

from __future__ import annotations

import json
from decimal import Decimal

from bs4 import BeautifulSoup

from pipelines.adapters import parser_for
from pipelines.gpu.records import GpuBatch
from pipelines.sources.file import SourceSpec, sample_path

D = Decimal
SOURCE_ID = "gpu_leadergpu"
SPEC = SourceSpec(
    id=SOURCE_ID,
    adapter="gpu_leadergpu",
    url="https://www.leadergpu.com/filter_servers?filterExpression=available_server_next_month&lang=en",
    sample="gpu/leadergpu.json",
    options={"provider": "LeaderGPU"},
)
SAMPLE = sample_path(SPEC).read_bytes()
SAMPLE_JSON = json.loads(SAMPLE)
SAMPLE_HTML = SAMPLE_JSON["matchesHtml"]

OD, RES = "on_demand", "reserved"
# listing -> (gpu_name, gpu_count, kind, amount, currency, per, period, stock, region, memory GB, offer_count)
EXPECTED = {
    "1 pcs NVIDIA A10 / minute": (
        "NVIDIA A10",
        1,
        OD,
        D("0.0053"),
        "EUR",
        "instance",
        "minute",
        "in_stock",
        None,
        D("24"),
        1,
    ),
    "1 pcs NVIDIA A10 / day": ("NVIDIA A10", 1, OD, D("7.50"), "EUR", "instance", "day", "in_stock", None, D("24"), 1),
    "1 pcs NVIDIA A10 / week": (
        "NVIDIA A10",
        1,
        RES,
        D("49.00"),
        "EUR",
        "instance",
        "week",
        "in_stock",
        None,
        D("24"),
        1,
    ),
    "1 pcs NVIDIA A10 / month": (
        "NVIDIA A10",
        1,
        RES,
        D("199.00"),
        "EUR",
        "instance",
        "month",
        "in_stock",
        None,
        D("24"),
        1,
    ),
    "8 pcs NVIDIA H100 / minute": (
        "NVIDIA H100",
        8,
        OD,
        D("0.29"),
        "EUR",
        "instance",
        "minute",
        "in_stock",
        None,
        D("80"),
        1,
    ),
    "8 pcs NVIDIA H100 / day": (
        "NVIDIA H100",
        8,
        OD,
        D("410.00"),
        "EUR",
        "instance",
        "day",
        "in_stock",
        None,
        D("80"),
        1,
    ),
    "8 pcs NVIDIA H100 / week": (
        "NVIDIA H100",
        8,
        RES,
        D("2650.00"),
        "EUR",
        "instance",
        "week",
        "in_stock",
        None,
        D("80"),
        1,
    ),
    "8 pcs NVIDIA H100 / month": (
        "NVIDIA H100",
        8,
        RES,
        D("10900.00"),
        "EUR",
        "instance",
        "month",
        "in_stock",
        None,
        D("80"),
        1,
    ),
    "2 pcs NVIDIA RTX A6000 / minute": (
        "NVIDIA RTX A6000",
        2,
        OD,
        D("0.0180"),
        "EUR",
        "instance",
        "minute",
        "sold_out",
        None,
        D("48"),
        1,
    ),
    "2 pcs NVIDIA RTX A6000 / day": (
        "NVIDIA RTX A6000",
        2,
        OD,
        D("24.00"),
        "EUR",
        "instance",
        "day",
        "sold_out",
        None,
        D("48"),
        1,
    ),
    "2 pcs NVIDIA RTX A6000 / week": (
        "NVIDIA RTX A6000",
        2,
        RES,
        D("150.00"),
        "EUR",
        "instance",
        "week",
        "sold_out",
        None,
        D("48"),
        1,
    ),
    "2 pcs NVIDIA RTX A6000 / month": (
        "NVIDIA RTX A6000",
        2,
        RES,
        D("560.00"),
        "EUR",
        "instance",
        "month",
        "sold_out",
        None,
        D("48"),
        1,
    ),
}
EXPECTED_UNPRICED = ["4 pcs Tesla V100"]


def row(offer) -> tuple:
    return (
        offer.gpu_name,
        offer.gpu_count,
        offer.price_kind.value,
        offer.amount,
        offer.currency,
        offer.price_per.value,
        offer.period.value,
        offer.stock_status.value,
        offer.region,
        offer.gpu_memory_gb_printed,
        offer.offer_count,
    )


def offers_of(batch: GpuBatch) -> dict[str, tuple]:
    listings = [o.listing for o in batch.offers]
    assert len(listings) == len(set(listings)), "listings must be unique"
    return {o.listing: row(o) for o in batch.offers}


def parse_html(html: str, **other_keys) -> GpuBatch:
    return parser_for("gpu_leadergpu")(json.dumps({**SAMPLE_JSON, **other_keys, "matchesHtml": html}).encode(), SPEC)


def edited(edit) -> str:
    soup = BeautifulSoup(SAMPLE_HTML, "lxml")
    edit(soup)
    return str(soup)


def card_titled(soup: BeautifulSoup, title: str):
    return next(c for c in soup.select("section.b-product-gpu") if title in c.get_text())
