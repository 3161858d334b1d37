"""Azure Retail Prices API (GET prices.azure.com/api/retail/prices, keyless, paged by `NextPageLink`): GPU VM sizes.

Each page is `{"BillingCurrency", "Items": [...], "NextPageLink", "Count"}`; the source's `paging` fetches every
page (pipelines/fetch/pages.py) and this reader takes them all, or a single page captured on its own. An item is
one meter of one size in one region: `armSkuName` (Standard_ND96isr_H100_v5), `armRegionName` (eastus),
`retailPrice` in `currencyCode`, `unitOfMeasure` ("1 Hour"), `type` and `meterName`/`skuName`.

The kinds, by the item's own words:
- `type` Consumption: on-demand, or spot when the meter's name ends "Spot";
- `type` Reservation with `reservationTerm` "1 Year"/"3 Years": reserved_1y/_3y, `retailPrice` being the whole
  term's price (period year or 3 years, per hour derived over 8,760 hours a year);
- each `savingsPlan[]` entry of an on-demand item (api-version 2023-01-01-preview): savings_plan_1y/_3y, hourly.

Left out by design, counted in no error: Windows meters (`productName` ending "Windows": the licence is in the
price, and the other clouds' prices are Linux), "Low Priority" meters (Azure Batch's, not a VM price kind) and
DevTest rates. The API states no GPU: each size's model and count come from pipelines/reference/azure_vm_sizes.json,
which names the Microsoft page that states them; a size not there is refused by name, as is an item with no price,
another unit or an unknown type, while the rest lands. The region is the API's `armRegionName`; stock is unknown.

When the whole answer cannot be read, it is read region by region (pipelines/fetch/split_pages.py): the regions
read whole land, and the others, named, keep their last good prices.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from pipelines.errors import ParseError
from pipelines.gpu.readers.refusals import RowRefused, first_refused, gpu_offer
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer
from pipelines.reading.json_body import json_number
from pipelines.reading.pages import SplitRead, paged_answer
from pipelines.reading.read_paths import ReadPaths
from pipelines.sources.file import SourceSpec
from pipelines.sources.locations import PACKAGE_DIR

PARSER_VERSION = "gpu_azure_retail/1.0"
PROVIDER = "Azure"  # unless the source names its own (`options.provider`)
SIZES_FILE = PACKAGE_DIR / "reference" / "azure_vm_sizes.json"

ITEM = "Items[]."
REQUIRED = ("armSkuName", "armRegionName", "retailPrice", "currencyCode", "unitOfMeasure", "type")
OPTIONAL = ("meterName", "skuName", "productName", "reservationTerm", "savingsPlan")
HOUR = "1 Hour"
TERMS = {"1 year": 1, "3 years": 3}
RESERVED = {1: GpuPriceKind.RESERVED_1Y, 3: GpuPriceKind.RESERVED_3Y}
SAVINGS_PLAN = {1: GpuPriceKind.SAVINGS_PLAN_1Y, 3: GpuPriceKind.SAVINGS_PLAN_3Y}
TERM_PERIOD = {1: BillingPeriod.YEAR, 3: BillingPeriod.THREE_YEARS}
SPOT = re.compile(r"\bspot$", re.IGNORECASE)
LOW_PRIORITY = re.compile(r"\blow priority$", re.IGNORECASE)
WINDOWS = re.compile(r"\bwindows$", re.IGNORECASE)
SKIPPED_TYPES = frozenset({"DevTestConsumption"})


@cache
def vm_sizes() -> dict[str, tuple[str, int]]:
    """armSkuName -> (GPU name as Microsoft prints it, GPUs per VM), from the size catalog."""
    return {s["size"]: (s["gpu_name"], s["gpu_count"]) for s in json.loads(SIZES_FILE.read_text())["sizes"]}


def parse(body: bytes, source: SourceSpec) -> GpuRows:
    sid = source.id
    offers: dict[tuple[str, str, str], GpuOffer] = {}
    refused: list[str] = []
    paths = ReadPaths()
    answer = paged_answer(body, sid)
    for number, page in enumerate(answer.documents, start=1):
        items = page.get("Items") if isinstance(page, dict) else page  # a bare list: a capture of the items alone
        if not isinstance(items, list):
            raise ParseError(sid, f"page {number} has no list at key Items")
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise ParseError(sid, f"page {number}, item {index} is not an object")
            paths.found_keys(ITEM, item, (*REQUIRED, *OPTIONAL))
            try:
                found = _offers(item, source)
            except RowRefused as why:
                refused.append(f"{_named(item)}: {why}")
                continue
            for offer in found:
                key = (offer.listing, offer.price_kind.value, offer.region or "")
                if key in offers and offers[key].amount != offer.amount:
                    refused.append(
                        f"{_named(item)}: a second {offer.price_kind.value} price, {offer.amount} against "
                        f"{offers[key].amount}; the first is kept"
                    )
                    continue
                offers.setdefault(key, offer)
    if not offers:
        raise ParseError(
            sid, f"no GPU VM price in the answer ({len(refused)} item(s) refused)" + first_refused(refused)
        )
    if answer.split is None:
        return GpuRows(offers=list(offers.values()), refused=refused, shape=paths.fingerprint)
    refused += split_refusals(answer.split)
    regions = list(answer.split.read)
    return GpuRows(offers=list(offers.values()), refused=refused, shape=paths.fingerprint, regions_read=regions)


def split_refusals(split: SplitRead) -> list[str]:
    """What an answer read region by region did not land, named: each region whose own answer failed, and every
    region the pages read before the failure did not name. Each keeps its last good prices."""
    kept = "its last good prices stay current"
    refused = [f"region {region}: its own answer failed too, {why}; {kept}" for region, why in split.failed.items()]
    refused.append(
        f"the answer for every region failed ({split.whole_answer_failed}), so each of the {len(split.read)} "
        f"region(s) its first pages named was read on its own; any region they did not name was not asked for: "
        f"{kept.replace('its', 'their')}"
    )
    return refused


def _offers(item: dict[str, Any], source: SourceSpec) -> list[GpuOffer]:
    """The item's offers: none for a meter left out by design, else its own price and any savings-plan rates."""
    kind_type = item.get("type")
    meter = str(item.get("meterName") or item.get("skuName") or "")
    if kind_type in SKIPPED_TYPES or LOW_PRIORITY.search(meter) or WINDOWS.search(str(item.get("productName") or "")):
        return []
    size = item.get("armSkuName")
    gpu = vm_sizes().get(size) if isinstance(size, str) else None
    if gpu is None:
        raise RowRefused(f"size {size!r} is not in the Azure size catalog ({SIZES_FILE.name}): its GPUs are not stated")
    if item.get("unitOfMeasure") != HOUR:
        raise RowRefused(f"priced per {item.get('unitOfMeasure')!r}, not per {HOUR!r}")
    if kind_type == "Consumption":
        kind, period = (GpuPriceKind.SPOT if SPOT.search(meter) else GpuPriceKind.ON_DEMAND), BillingPeriod.HOUR
    elif kind_type == "Reservation":
        years = _years(item.get("reservationTerm"), "reservationTerm")
        kind, period = RESERVED[years], TERM_PERIOD[years]
    else:
        raise RowRefused(f"price type {kind_type!r} is none ratecard reads")
    offers = [_offer(item, gpu, kind, period, item.get("retailPrice"), source)]
    if kind == GpuPriceKind.ON_DEMAND:
        plans = item.get("savingsPlan") or []
        if not isinstance(plans, list):
            raise RowRefused(f"savingsPlan is not a list: {plans!r}")
        for plan in plans:
            if not isinstance(plan, dict):
                raise RowRefused(f"a savingsPlan entry is not an object: {plan!r}")
            years = _years(plan.get("term"), "savingsPlan term")
            offers.append(_offer(item, gpu, SAVINGS_PLAN[years], BillingPeriod.HOUR, plan.get("retailPrice"), source))
    return offers


def _offer(
    item: dict[str, Any],
    gpu: tuple[str, int],
    kind: GpuPriceKind,
    period: BillingPeriod,
    price: Any,
    source: SourceSpec,
) -> GpuOffer:
    amount = json_number(price)
    if amount is None:
        raise RowRefused(f"{kind.value} price {price!r} is not a number")
    gpu_name, count = gpu
    try:
        return gpu_offer(
            listing=item["armSkuName"],
            gpu_name=gpu_name,
            gpu_count=count,
            price_kind=kind,
            amount=amount,
            currency=item.get("currencyCode") or source.options.get("currency") or "",
            price_per=PricePer.INSTANCE,
            period=period,
            region=item.get("armRegionName") or None,
        )
    except RowRefused as why:
        raise RowRefused(f"{kind.value}: {why}") from None


def _years(term: Any, what: str) -> int:
    years = TERMS.get(str(term).strip().lower()) if term is not None else None
    if years is None:
        raise RowRefused(f"{what} {term!r} is neither '1 Year' nor '3 Years'")
    return years


def _named(item: dict[str, Any]) -> str:
    return f"{item.get('armSkuName')} in {item.get('armRegionName')} ({item.get('meterName') or item.get('type')})"
