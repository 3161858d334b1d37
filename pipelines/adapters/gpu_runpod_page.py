"""RunPod's public GPU pricing page (www.runpod.io/gpu-instance/pricing, later www.runpod.io/pricing), read from
dated captures of it (the Wayback Machine's): the GPU types the page embeds, read as RunPod's GraphQL API serves them.

Shapes seen (tests/recorded/runpod_pages/):
- 2023-09, a Next.js page: `<script id="__NEXT_DATA__" type="application/json">` whose `props.pageProps.data` is a
  list of `{"__typename": "GpuType", "id", "displayName", "memoryInGb", "secureCloud", "communityCloud",
  "securePrice", "communityPrice", "secureSpotPrice", "communitySpotPrice", "lowestPrice": {"stockStatus", ...}}`:
  the API's own objects, with its quirks (communityPrice on types with communityCloud false, securePrice 0). Read.
- 2025-09, a Webflow page: no JSON; one row per GPU whose prices sit only in `data-secure-cloud-price` /
  `data-community-cloud-price` attributes (the figure shown is a script-filled 0). Refused, by name.
- 2026-08: a schema.org JSON-LD `@graph` of `Product`s ("H100 SXM GPU on Runpod"), each with a "Community Cloud" and
  a "Secure Cloud" `Offer` price, a string in `priceCurrency`, per GPU-hour: read as the API's kinds (secure:
  on-demand, community: community), the listing named like the API's ("H100 SXM (secure)"). It states no GPU id,
  memory or stock: the product's name is the GPU's, memory and stock stay unknown.

The objects are found by meaning, never by where they sit: every <script> whose text is JSON (and any JSON text
inside its strings) is walked, and each object carrying one of the API's price keys is a GPU type. They go to
pipelines.adapters.gpu_runpod_graphql as `{"data": {"gpuTypes": [...]}}`, so placeholders, prices that mean "not
offered" and float noise are handled exactly as for the live API; JSON numbers stay exact Decimals throughout.
Prices are USD per GPU-hour.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from bs4 import BeautifulSoup, Tag

from pipelines.adapters import gpu_runpod_graphql as graphql
from pipelines.errors import ParseError
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, GpuRows, PricePer
from pipelines.reading.json_body import exact_json, load_json
from pipelines.reading.tables import shape_fingerprint, soup_of
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "gpu_runpod_page/1.0"
PROVIDER = "RunPod"  # unless the source names its own (`options.provider`)

PRICE_KEYS = ("securePrice", "communityPrice")  # an object carrying one is a GPU type as the API serves it
WANTED = f"JSON objects with the GraphQL API's GPU-type keys ({', '.join(graphql.REQUIRED)})"


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GpuRows:
    sid = source.id
    soup = soup_of(body, charset)
    scripts = [script.get_text() for script in soup.find_all("script")]
    documents = [document for text in scripts if (document := _json(text, sid)) is not None]
    try:
        objects = [found for document in documents for found in _objects(document, sid)]
    except RecursionError as exc:
        raise ParseError(sid, "the page's embedded JSON is nested too deeply to read") from exc
    types: list[dict[str, Any]] = []
    for found in objects:
        if any(key in found for key in PRICE_KEYS) and found not in types:  # the same list may be embedded twice
            types.append(found)
    if not types:
        offers = _schema_offers(objects, sid)
        if offers:
            return GpuRows(offers=offers, shape=shape_fingerprint(["schema.org Product", "Offer", "price"]))
        raise ParseError(sid, _nothing_found(soup, scripts, documents, objects))
    missing = [key for key in graphql.REQUIRED if any(key not in entry for entry in types)]
    if missing:
        names = sorted({str(entry.get("displayName") or entry.get("id")) for entry in types if missing[0] not in entry})
        raise ParseError(
            sid,
            f"the page embeds {len(types)} GPU-type object(s), but some lack key(s) {', '.join(missing)} that the "
            f"GraphQL reader needs (e.g. {', '.join(names[:3])}); nothing is filled in",
        )
    return graphql.parse(exact_json({"data": {"gpuTypes": types}}).encode(), source)


# "H100 SXM GPU on Runpod": the GPU, before the words naming the product around it.
_PRODUCT = re.compile(r"^(?P<gpu>.+?)\s+GPU\b.*$", re.IGNORECASE)
# An offer named for its cloud, as the API names its prices: secure is on-demand, community its own kind.
_CLOUDS = {"secure cloud": (GpuPriceKind.ON_DEMAND, "secure"), "community cloud": (GpuPriceKind.COMMUNITY, "community")}


def _schema_offers(objects: list[dict[str, Any]], sid: str) -> list[GpuOffer]:
    """Each schema.org Product's cloud offers, as GPU offers; an offer of another name is not read."""
    offers: list[GpuOffer] = []
    for product in objects:
        if product.get("@type") != "Product" or not isinstance(product.get("name"), str):
            continue
        named = _PRODUCT.match(product["name"].strip())
        if named is None:
            continue  # a product that is no GPU
        gpu = named["gpu"].strip()
        for offer in _objects(product.get("offers"), sid):
            cloud = _CLOUDS.get(str(offer.get("name", "")).strip().lower())
            if offer.get("@type") != "Offer" or cloud is None:
                continue
            try:
                amount = Decimal(str(offer.get("price")))
            except InvalidOperation:
                raise ParseError(
                    sid, f"{product['name']!r} {offer.get('name')}: price {offer.get('price')!r} is no number"
                ) from None
            offers.append(
                GpuOffer(
                    listing=f"{gpu} ({cloud[1]})",
                    gpu_name=gpu,
                    gpu_count=1,
                    price_kind=cloud[0],
                    amount=amount,
                    currency=str(offer.get("priceCurrency") or ""),
                    price_per=PricePer.GPU,
                    period=BillingPeriod.HOUR,
                )
            )
    return offers


def _json(text: str, sid: str) -> Any:
    """The text as JSON (numbers as Decimal), or None when it is not JSON (a JavaScript program, prose)."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        return load_json(stripped.encode(), sid)
    except ParseError:
        return None


def _objects(node: Any, sid: str) -> Iterator[dict[str, Any]]:
    """Every JSON object in the tree, including those in JSON text held by a string (escaped JSON)."""
    children: Iterable[Any]
    if isinstance(node, dict):
        yield node
        children = node.values()
    elif isinstance(node, list):
        children = node
    elif isinstance(node, str) and (inner := _json(node, sid)) is not None:
        children = [inner]
    else:
        return
    for child in children:
        yield from _objects(child, sid)


def _nothing_found(soup: BeautifulSoup, scripts: list[str], documents: list[Any], objects: list[dict[str, Any]]) -> str:
    """What was looked for, where, and what the page holds instead."""
    message = f"no {WANTED} in the page's {len(scripts)} <script> block(s), {len(documents)} of them JSON"
    offers = [o for o in objects if o.get("@type") == "Offer" and "price" in o]
    if offers:
        message += (
            f"; its JSON holds {len(offers)} schema.org Offer price(s) instead (a product name and a price each: "
            "no API GPU id, memoryInGb, cloud flags or secureSpotPrice)"
        )
    attributes = sorted(
        {name for tag in soup.find_all(True) if isinstance(tag, Tag) for name in tag.attrs if _price_attribute(name)}
    )
    if attributes:
        message += (
            f"; its HTML prints prices only in the attribute(s) {', '.join(attributes)} "
            "(no API GPU id, memoryInGb, cloud flags or secureSpotPrice)"
        )
    return message


def _price_attribute(name: str) -> bool:
    return name.startswith("data-") and name.endswith("-price")
