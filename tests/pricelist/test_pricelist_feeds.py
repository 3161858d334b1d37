"""The region index and the spot feed, fetched over HTTP on 127.0.0.1, and the offer files they lead to."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from pipelines.errors import ParseError
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.pricelist.offer_csv import parse_offer_csv
from pipelines.pricelist.records import PriceListKind
from pipelines.pricelist.region_index import RegionOffer, changed_regions, parse_region_index
from pipelines.pricelist.spot import parse_spot
from pipelines.pricelist.spot import priced_quotes as price_spot
from tests.support.localserver import LocalServer, Reply
from tests.support.pricelist_files import PRICELIST, SPOT, sample

INDEX_PATH = "/offers/v1.0/aws/AmazonEC2/current/region_index.json"
STAMP = "20260928184207"


def index_body(**changes: object) -> bytes:
    document = json.loads((PRICELIST / "region_index.json").read_bytes())
    document.update(changes)
    return json.dumps(document).encode()


@pytest.fixture
def served():
    with LocalServer() as server, Fetcher(FetchSettings(max_attempts=1, max_bytes=50 * 2**20)) as fetcher:
        server.set(
            INDEX_PATH, Reply(body=(PRICELIST / "region_index.json").read_bytes(), content_type="application/json")
        )
        for region in ("us-east-1", "us-east-2", "eu-south-2"):
            path = f"/offers/v1.0/aws/AmazonEC2/{STAMP}/{region}/index.csv"
            server.set(path, Reply(body=(PRICELIST / f"{region}.csv").read_bytes(), content_type="text/csv"))
        server.set("/spot.json", Reply(body=SPOT.read_bytes(), content_type="application/x-javascript"))
        yield server, fetcher


def test_region_index_leads_to_every_regional_csv_over_http(served):
    server, fetcher = served
    index = fetcher.fetch("aws_price_list", server.url(INDEX_PATH))
    parsed = parse_region_index(index.body, "aws_price_list", index.final_url)
    assert parsed.publication_date == "2026-09-28T18:42:07Z" and parsed.skipped == []
    offers = parsed.regions
    assert [(o.region_code, o.version) for o in offers] == [
        (r, STAMP) for r in ("eu-south-2", "us-east-1", "us-east-2")
    ]
    counts = {}
    for offer in offers:
        assert offer.csv_url.startswith(server.base_url) and offer.csv_url.endswith(f"/{offer.region_code}/index.csv")
        body = fetcher.fetch("aws_price_list", offer.csv_url).body
        batch = parse_offer_csv(body, f"aws_price_list_{offer.region_code}", region_code=offer.region_code)
        counts[offer.region_code] = sum(p.price_kind is PriceListKind.ON_DEMAND for p in batch.prices)
    assert counts == {"eu-south-2": 0, "us-east-1": 16, "us-east-2": 3}


def test_region_index_tolerates_extra_keys_and_limits_regions():
    document = json.loads(index_body())
    document["regions"]["us-east-1"]["someNewKey"] = "x"
    document["savingsPlanNote"] = {"anything": 1}
    index = parse_region_index(json.dumps(document).encode(), "idx", "https://pricing.example/", only={"us-east-2"})
    assert index.regions == [
        RegionOffer(
            "us-east-2",
            f"https://pricing.example/offers/v1.0/aws/AmazonEC2/{STAMP}/us-east-2/index.csv",
            STAMP,
        )
    ]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<html>not json</html>", "not JSON"),
        (index_body(regions={}), "no `regions`"),
        (index_body(regions={"us-east-1": {"regionCode": "us-east-1"}}), "no currentVersionUrl"),
        (
            index_body(
                regions={"us-east-1": {"currentVersionUrl": "/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.json"}}
            ),
            "no version stamp",
        ),
    ],
)
def test_region_index_in_another_shape_is_a_parse_error(body, message):
    with pytest.raises(ParseError, match=message):
        parse_region_index(body, "idx", "https://pricing.example/")


def test_keys_naming_no_region_are_skipped_and_said():
    document = json.loads(index_body())
    document["regions"]["aws-cn-other"] = {"currentVersionUrl": f"/x/{STAMP}/aws-cn-other/index.json"}
    index = parse_region_index(json.dumps(document).encode(), "idx", "https://pricing.example/")
    assert [o.region_code for o in index.regions] == ["eu-south-2", "us-east-1", "us-east-2"]
    assert len(index.skipped) == 1 and "aws-cn-other" in index.skipped[0]


def test_only_regions_whose_stamp_changed_are_fetched():
    document = json.loads(index_body())
    document["regions"]["us-east-2"]["currentVersionUrl"] = (
        "/offers/v1.0/aws/AmazonEC2/20261001000000/us-east-2/index.json"
    )
    index = parse_region_index(json.dumps(document).encode(), "idx", "https://pricing.example/")
    landed = {"us-east-1": STAMP, "us-east-2": STAMP}
    assert [(o.region_code, o.version) for o in changed_regions(index, landed)] == [
        ("eu-south-2", STAMP),  # never landed
        ("us-east-2", "20261001000000"),
    ]


def test_unknown_region_asked_for_is_named():
    with pytest.raises(ParseError, match="ap-south-9"):
        parse_region_index(index_body(), "idx", "https://pricing.example/", only={"ap-south-9", "us-east-1"})


def sample_type_attributes() -> dict[str, tuple[str | None, str | None]]:
    """What the sample regions' offer files say of each type, as the warehouse would hand it to the spot feed."""
    batches = [parse_offer_csv(sample(r), f"aws_price_list_{r}", region_code=r) for r in ("us-east-1", "us-east-2")]
    return {t.instance_type: (t.price_list_gpu, t.price_list_gpu_memory) for b in batches for t in b.types}


def spot_prices(body: bytes) -> dict[tuple[str, str], Decimal]:
    parsed = parse_spot(body, "aws_spot")
    assert parsed.prices == [] and parsed.pending  # the feed has no accelerator figures of its own
    batch = price_spot(parsed, sample_type_attributes())
    assert batch.pending == [] and batch.unpriced == []
    assert all(p.indicative and p.price_kind is PriceListKind.SPOT and p.location is None for p in batch.prices)
    return {(p.region_code, p.instance_type): p.hourly_usd for p in batch.prices}


def test_spot_feed_over_http_linux_only_one_price_per_region(served):
    server, fetcher = served
    prices = spot_prices(fetcher.fetch("aws_spot", server.url("/spot.json")).body)
    assert prices[("us-east-1", "trn1.32xlarge")] == Decimal("6.3015")
    assert prices[("us-east-1", "inf2.xlarge")] == Decimal("0.2271")  # the linux column, not mswin's 0.4011
    assert prices[("us-east-2", "p5.48xlarge")] == Decimal("18.4410")
    assert ("us-east-1", "m5.large") not in prices  # outside the accelerator allowlist


def test_spot_na_means_no_row():
    prices = spot_prices(SPOT.read_bytes())
    assert ("us-east-1", "p5.48xlarge") not in prices and ("us-east-2", "trn2.48xlarge") not in prices


def test_spot_zero_means_no_row():
    document = json.loads(SPOT.read_bytes())
    assert "0.0000" in json.dumps(document)  # the sample's p5e.48xlarge reads $0
    prices = spot_prices(SPOT.read_bytes())
    assert ("us-east-1", "p5e.48xlarge") not in prices


def test_spot_jsonp_with_legacy_region_names():
    document = json.loads(SPOT.read_bytes())
    document["config"]["regions"][0]["region"] = "us-east"  # the old spot.js name of us-east-1
    document["config"]["regions"][1]["region"] = "somewhere-new"
    document["config"]["regions"][2]["region"] = "xx-north-9"  # shaped like a code, but no region AWS has
    body = b"callback(" + json.dumps(document).encode() + b");"
    batch = parse_spot(body, "aws_spot")
    assert {q.region_code for q in batch.pending} == {"us-east-1"}
    assert any("somewhere-new" in w for w in batch.warnings) and any("xx-north-9" in w for w in batch.warnings)


def test_spot_feed_in_another_shape_is_a_parse_error():
    with pytest.raises(ParseError, match=r"config\.regions"):
        parse_spot(b'{"vers": 0.01, "config": {}}', "aws_spot")
    with pytest.raises(ParseError, match="neither JSON nor JSONP"):
        parse_spot(b"callback({broken", "aws_spot")


@pytest.mark.parametrize("path", [*sorted(PRICELIST.glob("*.csv")), PRICELIST / "region_index.json", SPOT], ids=str)
def test_every_price_list_sample_says_it_is_a_sample(path):
    assert b"ratecard sample" in path.read_bytes()[:4096].lower()


def test_a_size_listed_twice_at_one_price_is_kept_once_and_at_two_prices_is_refused():
    # The live feed lists g6.* and gr6.* twice in us-east-2 at identical prices (alexei-led/spotinfo's spot.json).
    document = json.loads(SPOT.read_bytes())
    sizes = document["config"]["regions"][0]["instanceTypes"][-1]["sizes"]
    twin = next(s for s in sizes if s["size"] == "g5.xlarge")
    sizes.append(json.loads(json.dumps(twin)))
    batch = parse_spot(json.dumps(document).encode(), "aws_spot")
    assert [q.instance_type for q in batch.pending].count("g5.xlarge") == 1
    sizes[-1]["valueColumns"][0]["prices"]["USD"] = "0.9999"
    with pytest.raises(ParseError, match=r"g5\.xlarge is listed twice at different prices: 0\.4418 and 0\.9999"):
        parse_spot(json.dumps(document).encode(), "aws_spot")


def test_a_price_in_scientific_notation_is_read_exactly():
    document = json.loads(SPOT.read_bytes())
    sizes = document["config"]["regions"][0]["instanceTypes"][-1]["sizes"]
    next(s for s in sizes if s["size"] == "g5.xlarge")["valueColumns"][0]["prices"]["USD"] = "9.0E-4"  # as t3.nano
    batch = parse_spot(json.dumps(document).encode(), "aws_spot")
    assert next(q.hourly_usd for q in batch.pending if q.instance_type == "g5.xlarge") == Decimal("0.0009")
