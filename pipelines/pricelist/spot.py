"""The public spot feed (website.spot.ec2.aws.a2z.com/spot.json, or the older JSONP spot.js).

Undocumented: one Linux price per region and type, no availability zone, so every row is `indicative`.
"N/A*" and 0 mean no price. The old feed names regions by legacy names (us-east, apac-sin), mapped to codes;
a region schemas/regions.py does not know is skipped with a warning (a region is never guessed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

from pydantic import ValidationError

from pipelines.errors import ParseError, RecordInvalid
from pipelines.pricelist.catalog import Catalog, accelerator_fields, load_catalog
from pipelines.pricelist.families import DEFAULT_FAMILIES, allowed
from pipelines.reading.tables import shape_fingerprint
from schemas.pricelist import PendingQuote, PriceListBatch, PriceListKind, PriceListPrice
from schemas.regions import aws_regions

PARSER_VERSION = "aws_spot_feed/1.0"
LEGACY_REGIONS = {
    "us-east": "us-east-1",
    "us-west": "us-west-1",
    "eu-ireland": "eu-west-1",
    "apac-sin": "ap-southeast-1",
    "apac-syd": "ap-southeast-2",
    "apac-tokyo": "ap-northeast-1",
}
JSONP = re.compile(rb"^\s*[A-Za-z_$][\w$.]*\s*\((?P<json>.*)\)\s*;?\s*$", re.DOTALL)


def _document(body: bytes, source_id: str) -> dict[str, Any]:
    match = JSONP.match(body)
    try:
        document: dict[str, Any] = json.loads(match.group("json") if match else body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(source_id, f"the spot feed is neither JSON nor JSONP: {exc}") from exc
    regions = document.get("config", {}).get("regions") if isinstance(document, dict) else None
    if not isinstance(regions, list):
        raise ParseError(source_id, "the spot feed has no config.regions list")
    return document


def region_code(name: str) -> str | None:
    """The region code of a feed's region name (legacy names mapped), when schemas/regions.py knows it."""
    code = LEGACY_REGIONS.get(name, name)
    return code if code in _known_codes() else None


@cache
def _known_codes() -> frozenset[str]:
    return frozenset(region.region_code for region in aws_regions())


def _linux_prices(region: dict[str, Any], source_id: str) -> Iterator[tuple[str, str]]:
    for group in region.get("instanceTypes", []):
        for size in group.get("sizes", []):
            columns = {column.get("name"): column for column in size.get("valueColumns", [])}
            if "size" not in size or "linux" not in columns:
                raise ParseError(source_id, f"a spot size entry without size or linux column: {size}")
            yield size["size"], str(columns["linux"].get("prices", {}).get("USD", ""))


def _amount(text: str) -> Decimal | None:
    """None for "N/A*", 0 or anything not a price: no row."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() and value > 0 else None


def parse_spot(body: bytes, source_id: str, *, families: Sequence[str] = DEFAULT_FAMILIES) -> PriceListBatch:
    """Spot quotes of the allowlisted types in every region the feed names (one batch, region_code None).

    The feed gives no accelerator count or memory, so every quote is pending: pipelines.refresh.kinds prices it
    with the latest price-list attributes of the same type (spot_prices), or fails the source naming the type."""
    document = _document(body, source_id)
    quotes: dict[tuple[object, ...], PendingQuote] = {}
    warnings: list[str] = []
    for region in document["config"]["regions"]:
        code = region_code(str(region.get("region", "")))
        if code is None:
            warnings.append(f"spot region {region.get('region')!r} is no region in schemas/aws_regions.json: skipped")
            continue
        for instance_type, printed in _linux_prices(region, source_id):
            amount = _amount(printed)
            if amount is not None and allowed(instance_type, families):
                quote = _quote(code, instance_type, amount, source_id)
                keep_once(quotes, quote, source_id, f"spot {code} {instance_type}")
    columns = document["config"].get("valueColumns", [])
    return PriceListBatch(
        source_id=source_id,
        parser_version=PARSER_VERSION,
        prices=[],
        pending=list(quotes.values()),
        warnings=warnings,
        shape=shape_fingerprint(["config.regions", "instanceTypes", "sizes", "valueColumns", *map(str, columns)]),
    )


def keep_once(quotes: dict[tuple[object, ...], PendingQuote], quote: PendingQuote, source_id: str, name: str) -> None:
    """One price per type, region and terms: the same price again is kept once; a different one is refused. (The
    live spot feed lists some sizes twice in a region, g6.* and gr6.* in us-east-2, at one price.)"""
    key = (quote.region_code, quote.instance_type, quote.price_kind, quote.lease_years, quote.purchase_option)
    seen = quotes.setdefault(key, quote)
    if seen.hourly_usd != quote.hourly_usd:
        raise ParseError(
            source_id, f"{name} is listed twice at different prices: {seen.hourly_usd} and {quote.hourly_usd}"
        )


def _quote(code: str, instance_type: str, amount: Decimal, source_id: str) -> PendingQuote:
    try:
        return PendingQuote(region_code=code, instance_type=instance_type, hourly_usd=amount)
    except ValidationError as exc:
        raise RecordInvalid(source_id, f"spot {code} {instance_type}: {exc}") from exc


def priced_quotes(
    batch: PriceListBatch, attributes: Mapping[str, tuple[str | None, str | None]], catalog: Catalog | None = None
) -> PriceListBatch:
    """The batch with its pending quotes priced: each type's accelerator figures from `attributes` (instance type
    -> the latest price list's `GPU` and `GPU Memory` as printed) and the catalog. A type neither settles is in
    `unpriced`, naming why; its quotes are not priced."""
    catalog = catalog if catalog is not None else load_catalog()
    prices, warnings, unpriced = list(batch.prices), list(batch.warnings), list(batch.unpriced)
    resolved: dict[str, dict[str, Any] | None] = {}
    for quote in batch.pending:
        if quote.instance_type not in resolved:
            gpu, memory = attributes.get(quote.instance_type, (None, None))
            fields, said = accelerator_fields(quote.instance_type, gpu, memory, catalog)
            if fields is None and quote.instance_type not in attributes:
                said = [f"{quote.instance_type}: no price-list attributes landed for it and no catalog entry"]
            resolved[quote.instance_type] = fields
            kind = quote.price_kind.value.replace("_", " ")
            (warnings if fields is not None else unpriced).extend(f"{kind} {message}" for message in said)
        fields = resolved[quote.instance_type]
        if fields is not None:
            prices.append(_record(quote, fields, batch.source_id))
    return batch.model_copy(update={"prices": prices, "pending": [], "warnings": warnings, "unpriced": unpriced})


def _record(quote: PendingQuote, fields: dict[str, Any], source_id: str) -> PriceListPrice:
    try:
        return PriceListPrice(
            **quote.model_dump(),
            indicative=quote.price_kind is PriceListKind.SPOT,  # the spot feed is no quote; a plan's rate is
            **fields,
        )
    except ValidationError as exc:
        kind = quote.price_kind.value.replace("_", " ")
        raise RecordInvalid(source_id, f"{kind} {quote.region_code} {quote.instance_type}: {exc}") from exc
