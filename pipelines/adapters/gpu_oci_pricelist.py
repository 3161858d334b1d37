"""Oracle Cloud's price list (GET apexapps.oracle.com/pls/apex/cetools/api/v1/products/, keyless): GPU parts.

The answer is `{"lastUpdated", "items": [...]}`, one item a priced part: `partNumber` (B98415), `displayName`
("Oracle Cloud Infrastructure - Compute - GPU - H100"), `metricName` ("GPU Per Hour"), `serviceCategory`
("Compute - GPU") and `currencyCodeLocalizations[]`, each a `currencyCode` with `prices[]` of `{model, value}`.

A GPU price is an item of a "Compute - GPU" service category metered per GPU-hour: its `PAY_AS_YOU_GO` value is the
on-demand list price of one GPU for an hour, in the currency asked for (`options.currency`, USD by default). The GPU
is what the display name prints after "GPU - " (H100, A100 - v2, E4): a name the GPU catalog does not know stays
unknown, never guessed. Oracle prices a GPU the same in every commercial region and the answer names none, so the
region is not stated. Items of other categories (Cloud@Customer, VMware, Roving Edge) and other metrics are not GPU
VM prices and are left out; a GPU item with no price in the currency, or a price that is not a positive number, is
refused by name while the rest lands.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from pipelines.errors import ParseError
from pipelines.gpu.readers.refusals import RowRefused, first_refused, gpu_offer
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer
from pipelines.reading.json_body import json_number, list_at, load_json
from pipelines.reading.read_paths import ReadPaths
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_oci_pricelist/1.0"
PROVIDER = "Oracle Cloud"  # unless the source names its own (`options.provider`)

ITEM = "items[]."
KEYS = ("partNumber", "displayName", "metricName", "serviceCategory", "currencyCodeLocalizations")
GPU_CATEGORY = re.compile(r"^compute\s*-\s*gpu\b", re.IGNORECASE)
PER_GPU_HOUR = re.compile(r"^gpu\s+per\s+hour$", re.IGNORECASE)
GPU_NAME = re.compile(r"\bGPU\s*-\s*(?P<gpu>\S.*)$", re.IGNORECASE)
ON_DEMAND = "PAY_AS_YOU_GO"


def parse(body: bytes, source: SourceSpec) -> GpuRows:
    sid = source.id
    items = list_at(load_json(body, sid), "items", sid)
    currency = str(source.options.get("currency", "USD"))
    offers: list[GpuOffer] = []
    refused: list[str] = []
    paths = ReadPaths()
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ParseError(sid, f"item {index} is not an object")
        paths.found_keys(ITEM, item, KEYS)
        if not _is_gpu_price(item):
            continue
        try:
            offers.append(_offer(item, currency))
        except RowRefused as why:
            refused.append(f"{item.get('partNumber')} {item.get('displayName')!r}: {why}")
    if not offers:
        raise ParseError(sid, f"no GPU price per GPU-hour in the answer ({len(items)} items)" + first_refused(refused))
    return GpuRows(offers=offers, refused=refused, shape=paths.fingerprint)


def _is_gpu_price(item: dict[str, Any]) -> bool:
    category, metric = str(item.get("serviceCategory") or ""), str(item.get("metricName") or "")
    return bool(GPU_CATEGORY.search(category) and PER_GPU_HOUR.search(metric.strip()))


def _offer(item: dict[str, Any], currency: str) -> GpuOffer:
    name = str(item.get("displayName") or "").strip()
    gpu = GPU_NAME.search(name)
    if gpu is None:
        raise RowRefused('the display name prints no GPU after "GPU - "')
    return gpu_offer(
        listing=name,
        gpu_name=gpu["gpu"].strip(),
        gpu_count=1,
        price_kind=GpuPriceKind.ON_DEMAND,
        amount=_price(item, currency),
        currency=currency,
        price_per=PricePer.GPU,
        period=BillingPeriod.HOUR,
    )


def _price(item: dict[str, Any], currency: str) -> Decimal:
    localisations = item.get("currencyCodeLocalizations")
    found = [c for c in localisations if isinstance(c, dict)] if isinstance(localisations, list) else []
    prices = next((c.get("prices") for c in found if c.get("currencyCode") == currency), None)
    if not isinstance(prices, list):
        raise RowRefused(f"no price in {currency}")
    value = next((p.get("value") for p in prices if isinstance(p, dict) and p.get("model") == ON_DEMAND), None)
    amount = json_number(value)
    if amount is None:
        raise RowRefused(f"its {ON_DEMAND} price in {currency} is {value!r}, not a number")
    return amount
