"""A price-list region index: one offer file per region.

The EC2 index (`/offers/v1.0/aws/AmazonEC2/current/region_index.json`) is an object keyed by region, each with
`currentVersionUrl`; the Savings Plans index (`/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/
region_index.json`) is an array of {regionCode, versionUrl}. Either URL carries a version stamp
(`/AmazonEC2/20260901000000/us-east-2/index.json`), so a region whose stamp has not changed need not be
downloaded again. The URLs are relative to the host.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from urllib.parse import urljoin

from pipelines.errors import ParseError
from pipelines.pricelist.records import REGION_CODE

VERSION_IN_URL = re.compile(r"/(\d{14})/")


class RegionOffer(NamedTuple):
    region_code: str
    csv_url: str  # absolute URL of the regional offer file, CSV variant
    version: str  # the version stamp in its URL


@dataclass(frozen=True)
class RegionIndex:
    publication_date: str | None  # as printed ("2026-09-28T18:42:07Z")
    regions: list[RegionOffer]  # sorted by region code
    skipped: list[str] = field(default_factory=list)  # keys that name no region (`aws-cn-other`), said why


def parse_region_index(
    body: bytes, source_id: str, base_url: str, *, only: Collection[str] | None = None
) -> RegionIndex:
    """Every region of the index (or those named in `only`); extra keys are ignored, odd region keys skipped."""
    document = json_document(body, source_id, "region index")
    regions = _by_region(document, source_id)
    offers, skipped = [], []
    for key, entry in regions.items():
        code = entry.get("regionCode", key) if isinstance(entry, dict) else key
        if not isinstance(code, str) or not re.match(REGION_CODE, code):
            skipped.append(f"region index key {key!r}: regionCode {code!r} is not a region code")
            continue
        offers.append(_region_offer(code, entry, source_id, base_url))
    if only is not None:
        unknown = sorted(set(only) - {offer.region_code for offer in offers})
        if unknown:
            raise ParseError(source_id, f"region(s) {', '.join(unknown)} are not in the region index")
        offers = [offer for offer in offers if offer.region_code in only]
    published = document.get("publicationDate")
    return RegionIndex(published if isinstance(published, str) else None, sorted(offers), skipped)


def json_document(body: bytes, source_id: str, what: str) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(source_id, f"the {what} is not JSON: {exc}") from exc


def entries(document: Any, key: str, source_id: str, what: str) -> dict[str, Any]:
    """The non-empty object under `key` (`regions`, `versions`), keyed by region or version."""
    found = document.get(key) if isinstance(document, dict) else None
    if not isinstance(found, dict) or not found:
        raise ParseError(source_id, f"the {what} has no `{key}` object")
    return found


def changed_regions(index: RegionIndex, landed: Mapping[str, str]) -> list[RegionOffer]:
    """The regions whose version stamp differs from the one landed (region code -> stamp): only these are fetched."""
    return [offer for offer in index.regions if landed.get(offer.region_code) != offer.version]


def _by_region(document: Any, source_id: str) -> dict[str, Any]:
    """The regions by key: the EC2 index's object as it is; the Savings Plans index's array keyed by regionCode."""
    listed = document.get("regions") if isinstance(document, dict) else None
    if not isinstance(listed, list):
        return entries(document, "regions", source_id, "region index")
    if not listed:
        raise ParseError(source_id, "the region index lists no regions")
    keyed: dict[str, Any] = {}
    for position, entry in enumerate(listed):
        code = entry.get("regionCode") if isinstance(entry, dict) else None
        key = code if isinstance(code, str) else f"#{position}"
        if key in keyed:
            raise ParseError(source_id, f"the region index lists region {key} twice")
        keyed[key] = entry
    return keyed


def _region_offer(code: str, entry: Any, source_id: str, base_url: str) -> RegionOffer:
    url = entry.get("currentVersionUrl", entry.get("versionUrl")) if isinstance(entry, dict) else None
    if not isinstance(url, str):
        raise ParseError(source_id, f"region {code!r} has no currentVersionUrl (or versionUrl) string")
    stamp = VERSION_IN_URL.search(url)
    if stamp is None:
        raise ParseError(source_id, f"region {code}: no version stamp in {url!r}")
    if not url.endswith(".json"):
        raise ParseError(source_id, f"region {code}: {url!r} does not name a JSON offer file")
    return RegionOffer(code, urljoin(base_url, url.removesuffix(".json") + ".csv"), stamp.group(1))
