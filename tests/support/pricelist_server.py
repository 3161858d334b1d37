"""AWS's price-list layout served on a local server (the region index and one offer file per region), and the spot
feed beside it, for tests that refresh the price list over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.many_sources import refresh_all
from pipelines.refresh.one_source import SourceOutcome
from pipelines.sources.file import SourceSpec, load_sources
from tests.support.localserver import LocalServer, Reply
from tests.support.pricelist_files import sample

STAMP = "20260928184207"
NEWER = "20261028000000"
REGIONS = ("eu-south-2", "us-east-1", "us-east-2")
INDEX = "/offers/v1.0/aws/AmazonEC2/current/region_index.json"
RATECARD = Path(sys.executable).parent / "ratecard"
SPOT_PATH = "/spot.json"


def offer_path(region: str, stamp: str = STAMP) -> str:
    return f"/offers/v1.0/aws/AmazonEC2/{stamp}/{region}/index.csv"


def unit(region: str) -> str:
    return "aws_pricelist_" + region.replace("-", "_")


def republished(region: str, version: str, published: str) -> bytes:
    """The region's sample as a later (or, for the gate, back-dated) file: new version and publication date."""
    lines = sample(region).read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = f'"Publication Date","{published}"\n'
    lines[3] = f'"Version","{version}"\n'
    return "".join(lines).encode()


class PriceList:
    """AWS's price-list layout on a local server: the region index and one offer file per region."""

    def __init__(self, server: LocalServer):
        self.server = server
        self.stamps = dict.fromkeys(REGIONS, STAMP)
        for region in REGIONS:
            self.publish(region, sample(region).read_bytes())

    def publish(self, region: str, body: bytes, stamp: str = STAMP) -> None:
        self.stamps[region] = stamp
        self.server.set(offer_path(region, stamp), Reply(body=body, content_type="text/csv"))
        regions = {
            code: {"regionCode": code, "currentVersionUrl": offer_path(code, s).removesuffix(".csv") + ".json"}
            for code, s in self.stamps.items()
        }
        index = {"formatVersion": "v1.0", "publicationDate": "2026-10-28T00:00:00Z", "regions": regions}
        for path in (INDEX, "/aws/pricelist/region_index.json"):  # AWS's path, and the sample's (sources files)
            self.server.set(path, Reply(body=json.dumps(index).encode(), content_type="application/json"))

    def hits(self, region: str) -> int:
        return self.server.hits(offer_path(region, self.stamps[region]))

    def source(self, **options: object) -> SourceSpec:
        declared = next(s for s in load_sources() if s.id == "aws_pricelist")
        data = declared.model_dump() | {"url": self.server.url(INDEX)}
        data["options"] = {**declared.options, **options}
        return SourceSpec.model_validate(data)

    def spot_source(self, body: bytes) -> SourceSpec:
        """The spot feed source, answered with `body` by the same server."""
        self.server.set(SPOT_PATH, Reply(body=body, content_type="application/json"))
        declared = next(s for s in load_sources() if s.id == "aws_spot")
        return SourceSpec.model_validate(declared.model_dump() | {"url": self.server.url(SPOT_PATH)})


def refresh(pricelist: PriceList, tmp_path: Path, *sources: SourceSpec, **options: object) -> dict[str, SourceOutcome]:
    """One refresh_all of `sources` and the price-list source (with `options`) into tmp_path/prices.duckdb."""
    with Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        outcomes = refresh_all(
            [*sources, pricelist.source(**options)],
            db_path=tmp_path / "prices.duckdb",
            archive=Archive(tmp_path / "archive"),
            fetcher=fetcher,
            max_sources=4,
        )
    return {o.source_id: o for o in outcomes}
