"""RunPod's public GraphQL API (POST https://api.runpod.io/graphql): one entry per GPU type.

The answer is `{"data": {"gpuTypes": [{"id": "NVIDIA H100 80GB HBM3", "displayName": "H100 SXM",
"memoryInGb": 80, "secureCloud": true, "communityCloud": true, "securePrice": 2.6899999999999995,
"communityPrice": 2.39, "secureSpotPrice": 1.99, "lowestPrice": {"uninterruptablePrice": 2.39,
"stockStatus": "High"}}, ...]}}`, prices in USD per GPU-hour. Quirks the API really has:
- `communityPrice: 0.5` is a placeholder on types with `communityCloud: false`: ignored;
- `securePrice: 0` (or null) means the type is not offered on secure cloud (nor, then, its spot price);
- prices are binary floats printed with noise (`1.9679999999999997`);
- `id` is the more specific name (gpu_name); `displayName` names the listing, with the cloud appended;
- `lowestPrice` (only read for its stock status) may be null: stock unknown. It may also be absent: stock
  unknown too, and the batch's shape (the key paths found) changes, so the drift rule reports it.
A type with no price on either cloud is reported in `unpriced`. The query POSTed is the `gpu_runpod` request_body
in sources.toml; tests check that it selects every path in KEY_PATHS.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from pipelines.errors import ParseError
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer, StockStatus
from pipelines.reading.json_body import json_number, load_json
from pipelines.reading.read_paths import ReadPaths
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_runpod_graphql/1.0"
PROVIDER = "RunPod"  # unless the source names its own (`options.provider`)

# RunPod sets its prices in cents and sub-cents per GPU-hour ($0.39, $2.69), never finer than 4 decimals;
# the API serves them as binary floats (2.6899999999999995). Rounding half-up to 4 dp restores the price as set
# (2.6900) without dropping a real digit: the noise is many orders of magnitude below 0.00005.
PRICE_QUANTUM = Decimal("0.0001")

STOCK = {
    "high": StockStatus.IN_STOCK,
    "medium": StockStatus.IN_STOCK,
    "low": StockStatus.IN_STOCK,
    "none": StockStatus.SOLD_OUT,
    "unavailable": StockStatus.SOLD_OUT,
    "": StockStatus.UNKNOWN,
}
TYPE = "data.gpuTypes[]."
REQUIRED = (
    "id",
    "displayName",
    "memoryInGb",
    "secureCloud",
    "communityCloud",
    "securePrice",
    "communityPrice",
    "secureSpotPrice",
)
LOWEST = "lowestPrice"  # optional
STOCK_STATUS = "stockStatus"
TYPE_KEYS = (*REQUIRED, LOWEST, f"{LOWEST}.{STOCK_STATUS}")
# Every key path read: the shape fingerprint is the sorted set of those found.
KEY_PATHS = tuple(TYPE + key for key in TYPE_KEYS)
# (price key, flag saying the cloud offers it, kind, cloud named in the listing)
PRICES = (
    ("securePrice", "secureCloud", GpuPriceKind.ON_DEMAND, "secure"),
    ("communityPrice", "communityCloud", GpuPriceKind.COMMUNITY, "community"),
    ("secureSpotPrice", "secureCloud", GpuPriceKind.SPOT, "secure"),
)


def parse(body: bytes, source: SourceSpec) -> GpuRows:
    sid = source.id
    document = load_json(body, sid)
    if not isinstance(document, dict):
        raise ParseError(sid, f"response is a JSON {type(document).__name__}, not an object")
    if document.get("errors"):
        errors = document["errors"]
        first = errors[0] if isinstance(errors, list) else errors
        message = first.get("message") if isinstance(first, dict) else first
        raise ParseError(sid, f"GraphQL error: {message}")
    data = document.get("data")
    types = data.get("gpuTypes") if isinstance(data, dict) else None
    if not isinstance(types, list):
        raise ParseError(sid, "response has no list at data.gpuTypes")
    if not types:
        raise ParseError(sid, "data.gpuTypes is empty")
    offers: list[GpuOffer] = []
    unpriced: list[str] = []
    seen: dict[tuple[str, str], str] = {}
    paths = ReadPaths()
    for index, entry in enumerate(types):
        found = _offers(entry, index, sid)
        paths.found_keys(TYPE, entry, TYPE_KEYS)
        if not found:
            unpriced.append(_text(entry, "displayName", f"gpuTypes[{index}]", sid))
        for offer in found:
            key = (offer.listing, offer.price_kind.value)
            if key in seen:
                raise ParseError(
                    sid, f"listing {offer.listing!r} ({key[1]}) appears twice: {seen[key]!r} and {offer.gpu_name!r}"
                )
            seen[key] = offer.gpu_name
        offers.extend(found)
    return GpuRows(
        offers=offers,
        unpriced=unpriced,
        shape=paths.fingerprint,
    )


def _offers(entry: Any, index: int, sid: str) -> list[GpuOffer]:
    where = f"gpuTypes[{index}]"
    if not isinstance(entry, dict):
        raise ParseError(sid, f"{where} is not an object")
    missing = [key for key in REQUIRED if key not in entry]
    if missing:
        raise ParseError(sid, f"{where} ({entry.get('id')!r}) lacks key(s) {', '.join(missing)}")
    gpu_name = _text(entry, "id", where, sid)
    where = f"gpuTypes[{index}] ({gpu_name!r})"
    display = _text(entry, "displayName", where, sid)
    memory = _number(entry["memoryInGb"], f"{where}.memoryInGb", sid)
    stock = _stock(entry.get(LOWEST), where, sid)
    offers = []
    for price_key, flag_key, kind, cloud in PRICES:
        flag = entry[flag_key]
        if not isinstance(flag, bool):
            raise ParseError(sid, f"{where}.{flag_key} is {flag!r}, not true/false")
        amount = _number(entry[price_key], f"{where}.{price_key}", sid)
        if not flag or not amount:  # cloud not offered (communityPrice 0.5 placeholder), or price 0/null
            continue
        try:
            rounded = amount.quantize(PRICE_QUANTUM, rounding=ROUND_HALF_UP)
        except InvalidOperation as exc:  # more digits than Decimal's precision: no real price
            raise ParseError(sid, f"{where}.{price_key} {amount} is out of range") from exc
        if not rounded:
            raise ParseError(sid, f"{where}.{price_key} {amount} rounds to zero")
        offers.append(
            GpuOffer(
                listing=f"{display} ({cloud})",
                gpu_name=gpu_name,
                gpu_count=1,
                price_kind=kind,
                amount=rounded,
                currency="USD",
                price_per=PricePer.GPU,
                period=BillingPeriod.HOUR,
                stock_status=stock,
                region=None,
                gpu_memory_gb_printed=memory or None,
                offer_count=1,
            )
        )
    return offers


def _text(entry: dict[str, Any], key: str, where: str, sid: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ParseError(sid, f"{where}.{key} is {value!r}, not a name")
    return value.strip()


def _number(value: Any, where: str, sid: str) -> Decimal | None:
    """A non-negative JSON number as an exact Decimal; null stays None."""
    if value is None:
        return None
    amount = json_number(value)
    if amount is None:
        raise ParseError(sid, f"{where} is {value!r}, not a number")
    if amount < 0:
        raise ParseError(sid, f"{where} is negative ({amount})")
    return amount


def _stock(lowest: Any, where: str, sid: str) -> StockStatus:
    if lowest is None:
        return StockStatus.UNKNOWN
    if not isinstance(lowest, dict) or STOCK_STATUS not in lowest:
        raise ParseError(sid, f"{where}.{LOWEST} lacks key {STOCK_STATUS}")
    status = lowest[STOCK_STATUS]
    if status is None:
        return StockStatus.UNKNOWN
    if not isinstance(status, str) or status.strip().lower() not in STOCK:
        raise ParseError(sid, f"{where}.lowestPrice.stockStatus {status!r} is not a known stock status")
    return STOCK[status.strip().lower()]
