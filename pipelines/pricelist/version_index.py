"""The EC2 offer's version index (`/offers/v1.0/aws/AmazonEC2/index.json`): every past version and its dates.

Each entry of `versions` (keyed by version id, in no particular order) gives the dates the version was in
effect and `offerVersionUrl`, the version's all-regions file. The version's own region index sits beside that
file (`/offers/v1.0/aws/AmazonEC2/<version>/region_index.json`), in the shape of the current one. The current
version's end date is printed as "" (an open end). Real shape: jtdelia/ec2-priceit@ae128cc:examples/
2-versionIndexUrl-file.json (110 versions, unordered keys, first effective 2015-12-01).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from itertools import pairwise
from typing import Any, NamedTuple
from urllib.parse import urljoin

from pipelines.errors import ParseError
from pipelines.pricelist.region_index import entries, json_document

VERSION_ID = re.compile(r"^\d{14}$")
# Where the version index sits relative to the current region index, as AWS lays them out.
VERSION_INDEX_PATH = "/offers/v1.0/aws/AmazonEC2/index.json"


class OfferVersion(NamedTuple):
    version: str  # the id, a 14-digit stamp ("20250912225308")
    effective_from: datetime  # versionEffectiveBeginDate (UTC)
    effective_to: datetime | None  # versionEffectiveEndDate; None: the version still in effect
    region_index_url: str  # absolute URL of the version's region index


def version_index_url(region_index_url: str, path: str = VERSION_INDEX_PATH) -> str:
    """The version index on the region index's host: AWS's URLs in these files are host-relative."""
    return urljoin(region_index_url, path)


def parse_version_index(body: bytes, source_id: str, base_url: str, *, since: date | None = None) -> list[OfferVersion]:
    """Every version in effect on or after `since` (all when None), oldest first; a malformed entry is refused,
    naming its key, since a silently skipped version would leave a hole in the history."""
    versions = entries(json_document(body, source_id, "version index"), "versions", source_id, "version index")
    parsed = sorted((_version(key, entry, source_id, base_url) for key, entry in versions.items()), key=_order)
    _refuse_overlaps(parsed, source_id)
    if since is None:
        return parsed
    start = datetime(since.year, since.month, since.day, tzinfo=UTC)
    return [v for v in parsed if v.effective_to is None or v.effective_to > start]


def _order(version: OfferVersion) -> tuple[datetime, str]:
    return version.effective_from, version.version


def _version(key: str, entry: Any, source_id: str, base_url: str) -> OfferVersion:
    if not VERSION_ID.match(key) or not isinstance(entry, dict):
        raise ParseError(source_id, f"version index entry {key!r} is not a 14-digit version with an object")
    begins = _date(entry.get("versionEffectiveBeginDate"), key, "versionEffectiveBeginDate", source_id)
    if begins is None:
        raise ParseError(source_id, f"version {key}: versionEffectiveBeginDate is empty")
    ends = _date(entry.get("versionEffectiveEndDate"), key, "versionEffectiveEndDate", source_id)
    if ends is not None and ends <= begins:
        raise ParseError(source_id, f"version {key}: ends {ends.isoformat()} on or before it begins")
    url = entry.get("offerVersionUrl")
    if not isinstance(url, str) or not url.endswith("/index.json") or f"/{key}/" not in url:
        raise ParseError(source_id, f"version {key}: offerVersionUrl {url!r} is not this version's index.json")
    return OfferVersion(key, begins, ends, urljoin(base_url, url.removesuffix("index.json") + "region_index.json"))


def _date(value: Any, key: str, field: str, source_id: str) -> datetime | None:
    """An ISO-8601 instant; "" or a missing field is an open end (the current version prints "")."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ParseError(source_id, f"version {key}: {field} {value!r} is not a date")
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ParseError(source_id, f"version {key}: {field} {value!r} is not an ISO date") from exc
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def _refuse_overlaps(versions: list[OfferVersion], source_id: str) -> None:
    """Two versions in effect at once, or an open one before the last, make "the price on a date" ambiguous."""
    for earlier, later in pairwise(versions):
        if earlier.effective_to is None or earlier.effective_to > later.effective_from:
            raise ParseError(
                source_id,
                f"versions {earlier.version} and {later.version} are both in effect on "
                f"{later.effective_from.date().isoformat()}",
            )
