"""AWS price-list feeds recorded from the live service by others (tests/recorded/aws/, provenance in SOURCES.md),
read through the real parsers: the spot feed (aws_spot_feed), the EC2 region index and the offer CSV
(aws_pricelist_region). Figures land as printed; a file the parser must not take is refused, naming why."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.adapters import aws_pricelist_region, aws_spot_feed
from pipelines.errors import ParseError
from pipelines.pricelist.records import PriceListBatch
from pipelines.pricelist.region_index import changed_regions, parse_region_index
from pipelines.sources.file import load_sources
from tests.support.paths import RECORDED

D = Decimal
AWS = RECORDED / "aws"
SOURCES = {s.id: s for s in load_sources()}
SPOT, PRICELIST = SOURCES["aws_spot"], SOURCES["aws_pricelist"]
SPOT_FILE = AWS / "spot_price_feed_2021-04.json"
INDEX_FILE = AWS / "ec2_region_index_2025-05-23.json"
OFFER_HEAD = AWS / "ec2_offer_all_regions_head.csv"
HOST = "https://pricing.us-east-1.amazonaws.com/"


def spot_prices(body: bytes, **options: object) -> dict[tuple[str | None, str], Decimal]:
    source = SPOT.model_copy(update={"options": {**SPOT.options, **options}})
    batch: PriceListBatch = aws_spot_feed.parse(body, source)
    assert batch.prices == [] and batch.warnings == []
    return {(q.region_code, q.instance_type): q.hourly_usd for q in batch.pending}


def jsonp(body: bytes) -> bytes:
    """The envelope the live spot.js sends and the recorder stripped, around the unchanged bytes."""
    return b"callback(" + body + b");"


@pytest.mark.parametrize("wrap", [False, True], ids=["json", "jsonp"])
def test_recorded_spot_feed_lands_the_accelerator_prices_of_every_region(wrap: bool) -> None:
    body = SPOT_FILE.read_bytes()
    found = spot_prices(jsonp(body) if wrap else body)
    # Legacy region names mapped to codes: us-east, us-west, eu-ireland, apac-syd (and us-east-2 as is).
    assert {region for region, _ in found} == {"us-east-1", "us-east-2", "us-west-1", "eu-west-1", "ap-southeast-2"}
    assert found[("us-east-1", "p4d.24xlarge")] == D("9.8318")
    assert found[("us-east-1", "inf1.xlarge")] == D("0.1104")
    assert found[("us-east-1", "g4dn.xlarge")] == D("0.1578")
    assert found[("eu-west-1", "p4d.24xlarge")] == D("10.619")
    assert found[("ap-southeast-2", "g4dn.xlarge")] == D("0.2052")
    assert found[("us-west-1", "inf1.xlarge")] == D("0.1326")
    # "N/A*" is no price: p4d.24xlarge in us-west and apac-syd.
    assert ("us-west-1", "p4d.24xlarge") not in found
    assert ("ap-southeast-2", "p4d.24xlarge") not in found
    # p3 is outside the default allowlist.
    assert not any(instance.startswith("p3.") for _, instance in found)
    assert len(found) == 58


def test_recorded_spot_feed_and_its_jsonp_form_give_the_same_quotes() -> None:
    body = SPOT_FILE.read_bytes()
    assert spot_prices(body) == spot_prices(jsonp(body))


def test_recorded_spot_feed_reads_a_family_the_allowlist_names() -> None:
    found = spot_prices(SPOT_FILE.read_bytes(), families=["p3"])
    assert found[("us-east-1", "p3.2xlarge")] == D("0.918")
    assert found[("us-east-1", "p3.16xlarge")] == D("7.344")
    assert {instance.split(".")[0] for _, instance in found} == {"p3"}


def test_recorded_ec2_region_index_names_every_regional_csv() -> None:
    index = parse_region_index(INDEX_FILE.read_bytes(), PRICELIST.id, HOST)
    assert index.publication_date == "2025-05-23T23:27:44Z"
    assert len(index.regions) == 101 and index.skipped == []
    assert {offer.version for offer in index.regions} == {"20250523232744"}
    offers = {offer.region_code: offer for offer in index.regions}
    assert offers["us-east-1"].csv_url == f"{HOST}offers/v1.0/aws/AmazonEC2/20250523232744/us-east-1/index.csv"
    # Local Zones and Wavelength Zones have their own offer files, keyed like regions.
    assert {"us-east-1-mia-1", "us-west-2-lax-1", "us-east-1-wl1-atl1"} <= set(offers)


def test_recorded_ec2_region_index_limited_to_regions_and_to_changed_stamps() -> None:
    index = parse_region_index(INDEX_FILE.read_bytes(), PRICELIST.id, HOST, only={"us-east-2", "us-west-2"})
    assert [offer.region_code for offer in index.regions] == ["us-east-2", "us-west-2"]
    landed = {"us-east-2": "20250523232744", "us-west-2": "20250401000000"}
    assert [offer.region_code for offer in changed_regions(index, landed)] == ["us-west-2"]
    with pytest.raises(ParseError, match="ap-south-9"):
        parse_region_index(INDEX_FILE.read_bytes(), PRICELIST.id, HOST, only={"ap-south-9"})


def test_the_recorded_all_regions_offer_head_is_refused_as_one_file_of_many_regions() -> None:
    """The head of AWS's all-regions EC2 CSV: rows of 15 regions. Read as a regional file, it must be refused."""
    with pytest.raises(ParseError, match=r"one offer file, several regions: ap-northeast-1, ap-southeast-1"):
        aws_pricelist_region.parse(OFFER_HEAD.read_bytes(), PRICELIST)


def test_the_recorded_all_regions_offer_head_is_refused_for_a_region_unit() -> None:
    unit = PRICELIST.model_copy(update={"options": {"region_code": "ap-northeast-1", "families": ["c6i"]}})
    with pytest.raises(ParseError, match=r"the region index gave this file for ap-northeast-1, but its rows also"):
        aws_pricelist_region.parse(OFFER_HEAD.read_bytes(), unit)


def test_the_recorded_offer_head_is_refused_when_its_version_is_not_the_index_entrys() -> None:
    unit = PRICELIST.model_copy(
        update={"options": {"region_code": "ap-northeast-1", "index_version": "20250523232744"}}
    )
    with pytest.raises(ParseError, match=r"prints Version 20250912225308, but the region index named version 2025052"):
        aws_pricelist_region.parse(OFFER_HEAD.read_bytes(), unit)
