"""The public spot feed (website.spot.ec2.aws.a2z.com/spot.json, or the older JSONP spot.js).

Undocumented: one Linux price per region and type, no availability zone, so every row is `indicative`.
"N/A*" and 0 mean no price. Each price stands alone, so a row whose price is not a price (no `USD` key, a word,
a negative figure), or whose type cannot be priced per accelerator, is refused by itself, with why (the batch's
`refused`); the rest of the feed lands. The old feed names regions by legacy names (us-east, apac-sin), mapped
to codes; a region schemas/regions.py does not know is skipped with a warning (a region is never guessed).
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
from pipelines.pricelist.curated import CuratedFigures, accelerator_fields, load_curated
from pipelines.pricelist.families import DEFAULT_FAMILIES, allowed
from pipelines.pricelist.records import (
    PRICED_ROW_BY_ROW,
    PendingQuote,
    PriceListBatch,
    PriceListKind,
    PriceListPrice,
    RefusedRow,
    ec2_type,
)
from pipelines.reading.tables import shape_fingerprint
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
NO_PRICE = frozenset({"N/A*", "N/A"})  # the feed's way of saying a size has no price in a region
NO_ATTRIBUTES = "no attributes landed and no curated entry"
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


def _linux_prices(region: dict[str, Any], source_id: str) -> Iterator[tuple[str, object]]:
    """(size, its linux column's `prices` as printed) of every size the region lists."""
    for group in region.get("instanceTypes", []):
        for size in group.get("sizes", []):
            columns = {column.get("name"): column for column in size.get("valueColumns", [])}
            if "size" not in size or "linux" not in columns:
                raise ParseError(source_id, f"a spot size entry without size or linux column: {size}")
            yield size["size"], columns["linux"].get("prices")


class NotAPrice(ValueError):
    """What a row prints is no price and no "no price" either: the row is refused, never dropped silently."""


def _amount(prices: object) -> Decimal | None:
    """The USD price; None for "N/A*" or 0 (no price: no row). NotAPrice for anything else that is no price."""
    if not isinstance(prices, dict) or "USD" not in prices:
        raise NotAPrice(f"no USD price (prices: {prices!r})")
    printed = str(prices["USD"]).strip()
    if printed in NO_PRICE:
        return None
    try:
        value = Decimal(printed)
    except InvalidOperation:
        raise NotAPrice(f"USD price {printed!r} is not a number") from None
    if not value.is_finite() or value < 0:
        raise NotAPrice(f"USD price {printed!r} is not a price")
    return value if value > 0 else None


def parse_spot(body: bytes, source_id: str, *, families: Sequence[str] = DEFAULT_FAMILIES) -> PriceListBatch:
    """Spot quotes of the allowlisted types in every region the feed names (one batch, region_code None).

    The feed gives no accelerator count or memory, so every quote is pending: the kind (pipelines/pricelist/kind.py)
    prices it with the latest price-list attributes of the same type (priced_quotes), or refuses the quote, with why."""
    document = _document(body, source_id)
    quotes: dict[tuple[object, ...], PendingQuote] = {}
    warnings: list[str] = []
    refused: list[RefusedRow] = []
    for region in document["config"]["regions"]:
        code = region_code(str(region.get("region", "")))
        if code is None:
            warnings.append(f"spot region {region.get('region')!r} is no region in schemas/aws_regions.json: skipped")
            continue
        for instance_type, printed in _linux_prices(region, source_id):
            if not allowed(instance_type, families):
                continue
            try:
                amount = _amount(printed)
            except NotAPrice as exc:
                refused.append(RefusedRow(region_code=code, instance_type=instance_type, reason=str(exc)))
                continue
            if amount is not None:
                quote = _quote(code, instance_type, amount, source_id)
                keep_once(quotes, quote, source_id, f"spot {code} {instance_type}")
    columns = document["config"].get("valueColumns", [])
    return PriceListBatch(
        source_id=source_id,
        parser_version=PARSER_VERSION,
        prices=[],
        pending=list(quotes.values()),
        warnings=warnings,
        refused=refused,
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
    batch: PriceListBatch,
    attributes: Mapping[str, tuple[str | None, str | None]],
    curated: CuratedFigures | None = None,
) -> PriceListBatch:
    """The batch with its pending quotes priced: each type's accelerator figures from `attributes` (instance type
    -> the latest price list's `GPU` and `GPU Memory` as printed; a SageMaker ml. type reads its EC2 type's, else
    its own row's) and the curated. A type neither settles is not priced: a spot or SageMaker quote of it is
    refused on its own (`refused`, with the region); a Savings Plans rate names the type in `unpriced`, which fails
    its region's file whole."""
    curated = curated if curated is not None else load_curated()
    prices, warnings, unpriced = list(batch.prices), list(batch.warnings), list(batch.unpriced)
    refused = list(batch.refused)
    resolved: dict[str, tuple[dict[str, Any] | None, str]] = {}
    for quote in batch.pending:
        kind = quote.price_kind.value.replace("_", " ")
        if quote.instance_type not in resolved:
            named, printed = _landed_or_own(quote, attributes)
            resolved[quote.instance_type] = _resolve(named, printed, curated, kind, warnings)
        fields, why = resolved[quote.instance_type]
        if fields is not None:
            prices.append(_record(quote, fields, batch.source_id))
        elif quote.price_kind in PRICED_ROW_BY_ROW:
            refused.append(
                RefusedRow(
                    region_code=quote.region_code,
                    instance_type=quote.instance_type,
                    price_kind=quote.price_kind,
                    reason=why,
                )
            )
        elif f"{kind} {quote.instance_type}: {why}" not in unpriced:
            unpriced.append(f"{kind} {quote.instance_type}: {why}")
    update = {"prices": prices, "pending": [], "warnings": warnings, "unpriced": unpriced, "refused": refused}
    return batch.model_copy(update=update)


def _landed_or_own(
    quote: PendingQuote, attributes: Mapping[str, tuple[str | None, str | None]]
) -> tuple[str, Mapping[str, tuple[str | None, str | None]]]:
    """The type a quote is priced as (a SageMaker ml. type: its EC2 type) and where its GPU figures are read: the
    landed attributes, or, when no EC2 type of that name is landed, what the quote's own row prints."""
    named = ec2_type(quote.instance_type)
    if named in attributes or quote.printed_gpu[0] is None:
        return named, attributes
    return named, {named: quote.printed_gpu}


def _resolve(
    instance_type: str,
    attributes: Mapping[str, tuple[str | None, str | None]],
    curated: CuratedFigures,
    kind: str,
    warnings: list[str],
) -> tuple[dict[str, Any] | None, str]:
    """A type's accelerator fields (None: it cannot be priced, and why); what is worth a look goes to `warnings`."""
    gpu, memory = attributes.get(instance_type, (None, None))
    fields, said = accelerator_fields(instance_type, gpu, memory, curated)
    if fields is not None:
        warnings.extend(f"{kind} {message}" for message in said)
        return fields, ""
    if instance_type not in attributes:
        return None, NO_ATTRIBUTES
    return None, said[0].removeprefix(f"{instance_type}: ")


def _record(quote: PendingQuote, fields: dict[str, Any], source_id: str) -> PriceListPrice:
    try:
        return PriceListPrice(
            **quote.model_dump(exclude={"price_list_gpu", "price_list_gpu_memory"}),
            indicative=quote.price_kind is PriceListKind.SPOT,  # the spot feed is no quote; a plan's rate is
            **fields,
        )
    except ValidationError as exc:
        kind = quote.price_kind.value.replace("_", " ")
        raise RecordInvalid(source_id, f"{kind} {quote.region_code} {quote.instance_type}: {exc}") from exc
