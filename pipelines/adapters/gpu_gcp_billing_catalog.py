"""Google's Cloud Billing Catalog (GET cloudbilling.googleapis.com/v1/services/<service>/skus, with an API key, paged
by `nextPageToken`): Cloud TPU prices per chip-hour.

Each page is `{"skus": [...], "nextPageToken"}`; the source's `paging` fetches every page and this reader takes
them all. A SKU is one price of one thing: `description` ("TpuV6e running in Dallas"), `category` (`resourceGroup`
"TPU", `usageType`), `serviceRegions` (["us-south1"]) and `pricingInfo[].pricingExpression`, whose `tieredRates`
give `unitPrice` as whole `units` (a string) plus `nanos`, read exactly, per `usageUnit` "h".

A TPU price is a SKU of resource group TPU whose description begins with the TPU version (TpuV5e, TpuV5p, TpuV6e,
TPU7x), as a commitment ("Commitment v1: TpuV5p running in ...") or as Flex-start ("DWS Defined Duration V6e running
in ..."): one chip for an hour, in every region the SKU lists. Its kind is its `usageType`: OnDemand, Preemptible
(spot), Commit1Yr and Commit3Yr (a resource-based committed use discount, a reservation of 1 or 3 years, billed
hourly); an OnDemand SKU of the Dynamic Workload Scheduler's Defined Duration, the name the catalog gives Flex-start
(a VM run for a defined duration of at most seven days), is dws_flex_start, a reservation kind of its own. Left out
by design: SKUs whose description qualifies the chip with other words (Capacity Optimized TpuV6e: a kind ratecard
does not read), other DWS SKUs (their mode is not stated) and TPU SKUs that name no TPU version (networking,
storage). A TPU SKU priced per another unit, with no price, in volume tiers of different prices, or of a usage type
not read here is refused by name while the rest lands. Stock is unknown.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from pipelines.errors import ParseError
from pipelines.gpu.readers.refusals import RowRefused, first_refused, gpu_offer
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer
from pipelines.reading.json_body import json_number
from pipelines.reading.pages import page_documents
from pipelines.reading.read_paths import ReadPaths
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_gcp_billing_catalog/1.0"
PROVIDER = "Google Cloud"  # unless the source names its own (`options.provider`)

SKU = "skus[]."
KEYS = ("skuId", "description", "category", "serviceRegions", "pricingInfo")
TPU_GROUP = "TPU"
VERSION = r"(?P<version>v\d+[a-z]*(?:\s*lite(?:pod)?)?|\d+x)\b"
TPU = re.compile(rf"\bTPU[\s-]*{VERSION}", re.IGNORECASE)
# What may come before the chip: nothing, a commitment's words, or Flex-start's name in the catalog (its own kind).
TPU_PRICE = re.compile(rf"^(?:Commitment v\d+:\s*)?TPU[\s-]*{VERSION}", re.IGNORECASE)
FLEX_START = re.compile(rf"^DWS\s+Defined\s+Duration\s+{VERSION}", re.IGNORECASE)
KINDS = {
    "OnDemand": GpuPriceKind.ON_DEMAND,
    "Preemptible": GpuPriceKind.SPOT,
    "Commit1Yr": GpuPriceKind.COMMITTED_USE_1Y,
    "Commit3Yr": GpuPriceKind.COMMITTED_USE_3Y,
}
HOUR = "h"
NANOS = Decimal("0.000000001")


def parse(body: bytes, source: SourceSpec) -> GpuRows:
    sid = source.id
    offers: list[GpuOffer] = []
    refused: list[str] = []
    paths = ReadPaths()
    for number, page in enumerate(page_documents(body, sid), start=1):
        skus = page.get("skus") if isinstance(page, dict) else None
        if not isinstance(skus, list):
            raise ParseError(sid, f"page {number} has no list at key skus")
        for index, sku in enumerate(skus):
            if not isinstance(sku, dict):
                raise ParseError(sid, f"page {number}, SKU {index} is not an object")
            paths.found_keys(SKU, sku, KEYS)
            try:
                offers += _offers(sku)
            except RowRefused as why:
                refused.append(f"{sku.get('skuId')} {sku.get('description')!r}: {why}")
    if not offers:
        raise ParseError(
            sid, f"no TPU price per chip-hour in the answer ({len(refused)} SKU(s) refused)" + first_refused(refused)
        )
    return GpuRows(offers=offers, refused=refused, shape=paths.fingerprint)


def tpu_name(text: str) -> str | None:
    """The TPU version a description names, as Google's docs title it: TpuV6e -> TPU v6e, TPU7x -> TPU7x,
    TpuV5 Lite -> TPU v5e (v5e's name in the API), DWS Defined Duration V6e -> TPU v6e."""
    found = TPU.search(text) or FLEX_START.search(text)
    if found is None:
        return None
    version = re.sub(r"\s+", "", found["version"].lower())
    version = re.sub(r"lite(pod)?$", "e", version)
    return f"TPU {version}" if version.startswith("v") else f"TPU{version}"


def _offers(sku: dict[str, Any]) -> list[GpuOffer]:
    found = sku.get("category")
    category: dict[str, Any] = found if isinstance(found, dict) else {}
    description = str(sku.get("description") or "")
    flex_start = FLEX_START.search(description) is not None
    if category.get("resourceGroup") != TPU_GROUP or not (flex_start or TPU_PRICE.search(description)):
        return []
    chip = tpu_name(description)
    kind = KINDS.get(str(category.get("usageType")))
    if flex_start and kind == GpuPriceKind.ON_DEMAND:
        kind = GpuPriceKind.DWS_FLEX_START
    if kind is None or chip is None or (flex_start and kind != GpuPriceKind.DWS_FLEX_START):
        raise RowRefused(f"usage type {category.get('usageType')!r} is none ratecard reads for this SKU")
    regions = sku.get("serviceRegions")
    if not isinstance(regions, list) or not regions or not all(isinstance(r, str) and r for r in regions):
        raise RowRefused(f"serviceRegions {regions!r} names no region")
    amount, currency = _hourly_price(sku)
    return [
        gpu_offer(
            listing=description,
            gpu_name=chip,
            gpu_count=1,
            price_kind=kind,
            amount=amount,
            currency=currency,
            price_per=PricePer.GPU,
            period=BillingPeriod.HOUR,
            region=region,
        )
        for region in regions
    ]


def _hourly_price(sku: dict[str, Any]) -> tuple[Decimal, str]:
    """The one price per chip-hour of the SKU's current pricing: units + nanos exactly, with its currency."""
    infos = sku.get("pricingInfo")
    if not isinstance(infos, list) or not infos or not isinstance(infos[-1], dict):
        raise RowRefused("no pricingInfo")
    expression = infos[-1].get("pricingExpression")
    if not isinstance(expression, dict):
        raise RowRefused("no pricingExpression")
    if expression.get("usageUnit") != HOUR:
        raise RowRefused(f"priced per {expression.get('usageUnit')!r}, not per hour ({HOUR!r})")
    rates = expression.get("tieredRates")
    prices = {_unit_price(rate) for rate in rates} if isinstance(rates, list) and rates else set()
    if len(prices) != 1:
        raise RowRefused(f"tiered rates {rates!r} give no single price")
    return prices.pop()


def _unit_price(rate: Any) -> tuple[Decimal, str]:
    price = rate.get("unitPrice") if isinstance(rate, dict) else None
    if not isinstance(price, dict):
        raise RowRefused(f"a tiered rate has no unitPrice: {rate!r}")
    raw, nanos = price.get("units", "0"), price.get("nanos", 0)
    units = _whole(raw) if isinstance(raw, str) else json_number(raw)  # int64 travels as a JSON string
    if units is None or not isinstance(nanos, int) or isinstance(nanos, bool):
        raise RowRefused(f"unitPrice {price!r} is not units and nanos")
    currency = price.get("currencyCode")
    if not isinstance(currency, str):
        raise RowRefused(f"unitPrice {price!r} names no currency")
    amount = units + nanos * NANOS
    return (amount.quantize(Decimal(1)) if amount == amount.to_integral_value() else amount.normalize()), currency


def _whole(text: str) -> Decimal | None:
    return Decimal(text) if re.fullmatch(r"-?\d+", text) else None
