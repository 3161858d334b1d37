"""Vast.ai marketplace offers (GET https://console.vast.ai/api/v0/bundles/?q=<json filter>).

The answer is `{"offers": [{"id": 7412093, "num_gpus": 1, "gpu_name": "RTX 3090", "gpu_ram": 24576,
"dph_total": 0.3227, "rentable": true, "geolocation": "Norway", ...}, ...]}`: one entry per machine offer,
`gpu_ram` in MB per GPU, `dph_total` in USD per hour for the WHOLE offer (all its GPUs, storage included).

Hundreds of offers are folded into one listing per printed `gpu_name`, keeping how many there were:
its price is the rentable offer with the lowest price per GPU (dph_total / num_gpus; ties: lowest id),
stated as Vast states it (per instance-hour, gpu_count = that offer's GPUs); offer_count = rentable offers.
A name whose offers are all non-rentable still yields one listing, sold out, priced from its cheapest offer.
Offers span locations, so region is None. `gpu_ram` may be null or absent (memory not stated); an absent one
changes the batch's shape (the key paths found), which the drift rule reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from pipelines.errors import ParseError
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer, StockStatus
from pipelines.reading.json_body import list_at, load_json
from pipelines.reading.read_paths import ReadPaths
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_vastai/1.0"
PROVIDER = "Vast.ai"  # unless the source names its own (`options.provider`)

OFFER = "offers[]."
REQUIRED = ("id", "gpu_name", "num_gpus", "dph_total", "rentable")
OPTIONAL = ("gpu_ram",)  # the shape fingerprint is the sorted set of these and REQUIRED found, under OFFER
MB_PER_GB = Decimal(1024)  # Vast's gpu_ram is MiB-based: 24576 for a 24 GB card
PRICE_QUANTUM = Decimal("0.000001")


@dataclass(frozen=True)
class _Offer:
    id: int
    gpu_name: str
    num_gpus: int
    gpu_ram_mb: Decimal | None
    dph_total: Decimal
    rentable: bool

    @property
    def sort_key(self) -> tuple[Fraction, int]:
        # Exact per-GPU price (no Decimal division rounding), then the lowest id breaks ties.
        return Fraction(self.dph_total) / self.num_gpus, self.id


def parse(body: bytes, source: SourceSpec) -> GpuRows:
    sid = source.id
    entries = list_at(load_json(body, sid), "offers", sid)
    if not entries:
        raise ParseError(sid, "offers is empty")
    groups: dict[str, list[_Offer]] = {}
    paths = ReadPaths()
    for index, entry in enumerate(entries):
        offer = _offer(entry, index, sid)
        paths.found_keys(OFFER, entry, (*REQUIRED, *OPTIONAL))  # entry is an object: _offer checked it
        groups.setdefault(offer.gpu_name, []).append(offer)
    offers = [_listing(name, group) for name, group in sorted(groups.items())]
    return GpuRows(
        offers=offers,
        shape=paths.fingerprint,
    )


def _listing(gpu_name: str, group: list[_Offer]) -> GpuOffer:
    rentable = [o for o in group if o.rentable]
    pool = rentable or group
    best = min(pool, key=lambda o: o.sort_key)
    return GpuOffer(
        listing=gpu_name,
        gpu_name=gpu_name,
        gpu_count=best.num_gpus,
        price_kind=GpuPriceKind.ON_DEMAND,
        amount=best.dph_total,
        currency="USD",
        price_per=PricePer.INSTANCE,
        period=BillingPeriod.HOUR,
        stock_status=StockStatus.IN_STOCK if rentable else StockStatus.SOLD_OUT,
        region=None,
        gpu_memory_gb_printed=best.gpu_ram_mb / MB_PER_GB if best.gpu_ram_mb else None,
        gpu_memory_unit="GiB",  # MiB / 1024
        offer_count=len(pool),
    )


def _offer(entry: Any, index: int, sid: str) -> _Offer:
    if not isinstance(entry, dict):
        raise ParseError(sid, f"offers[{index}] is not an object")
    offer_id = entry.get("id")
    if isinstance(offer_id, bool) or not isinstance(offer_id, int):
        raise ParseError(sid, f"offers[{index}] has id {offer_id!r}, not an integer offer id")
    where = f"offer {offer_id}"
    missing = [key for key in REQUIRED if key not in entry]
    if missing:
        raise ParseError(sid, f"{where} lacks key(s) {', '.join(missing)}")
    name = entry["gpu_name"]
    if not isinstance(name, str) or not name.strip():
        raise ParseError(sid, f"{where}: gpu_name {name!r} is not a name")
    count = entry["num_gpus"]
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 1024:
        raise ParseError(sid, f"{where}: num_gpus {count!r} is not a GPU count")
    price = entry["dph_total"]
    if isinstance(price, bool) or not isinstance(price, (int, Decimal)) or price <= 0:
        raise ParseError(sid, f"{where}: dph_total {price!r} is not a price (USD per hour > 0)")
    try:
        # dph_total is computed by Vast in binary floating point (0.5306666666666667): its float noise is
        # below a micro-dollar, so keep 6 decimals, half-up, as every stored money column does.
        price = Decimal(price).quantize(PRICE_QUANTUM, rounding=ROUND_HALF_UP)
    except InvalidOperation as exc:
        raise ParseError(sid, f"{where}: dph_total {price} is out of range") from exc
    if price <= 0 or price.adjusted() >= 12:
        raise ParseError(sid, f"{where}: dph_total {price} is not a plausible USD per hour")
    ram = entry.get("gpu_ram")
    if ram is not None and (isinstance(ram, bool) or not isinstance(ram, (int, Decimal)) or ram < 0):
        raise ParseError(sid, f"{where}: gpu_ram {ram!r} is not a memory size in MB")
    rentable = entry["rentable"]
    if not isinstance(rentable, bool):
        raise ParseError(sid, f"{where}: rentable {rentable!r} is not true/false")
    return _Offer(
        id=offer_id,
        gpu_name=name.strip(),
        num_gpus=count,
        gpu_ram_mb=None if ram is None else Decimal(ram),
        dph_total=Decimal(price),
        rentable=rentable,
    )
