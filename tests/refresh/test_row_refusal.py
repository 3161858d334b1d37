"""A row is refused, not its feed: a spot row whose price is no price, or whose type cannot be priced per
accelerator, is named with its region and reason, and the rest of the feed lands, over real HTTP into a real
DuckDB file; a refused spot row keeps its last landed version current. A Lambda table that cannot be read is
named while the readable one lands. Either way the refresh exits as for a failed source."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.pricelist.spot import parse_spot
from pipelines.refresh.many_sources import refresh_all
from pipelines.refresh.one_source import SourceOutcome
from pipelines.sources.file import SourceSpec, load_sources
from tests.adapters.test_gpu_lambda import soup, split_on_demand_table
from tests.support.gpu_offers import render
from tests.support.localserver import LocalServer, Reply
from tests.support.paths import RECORDED
from tests.support.pricelist_files import SPOT
from tests.support.pricelist_server import RATECARD, PriceList, refresh
from tests.support.sourcefiles import write_sources_file

RECORDED_SPOT = RECORDED / "aws" / "spot_price_feed_2021-04.json"
RECORDED_REGIONS = ("us-east-1", "us-east-2", "us-west-1", "eu-west-1", "ap-southeast-2")
UNPRICEABLE = ("g4dn.xlarge", "g4dn.2xlarge", "g4dn.4xlarge", "g4dn.8xlarge", "g4dn.12xlarge", "g4dn.16xlarge")
UNPRICEABLE += ("g4dn.metal", "p4d.24xlarge")
REFUSED = "[aws_spot] refused, not landed: spot"
KEPT = " (its last landed version, if any, stays current)"


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as running:
        yield running


def refresh_spot_alone(server: LocalServer, body: bytes, tmp_path: Path) -> SourceOutcome:
    return refresh_alone(PriceList(server).spot_source(body), tmp_path)


def refresh_alone(source: SourceSpec, tmp_path: Path) -> SourceOutcome:
    with Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        (outcome,) = refresh_all(
            [source],
            db_path=tmp_path / "prices.duckdb",
            archive=Archive(tmp_path / "archive"),
            fetcher=fetcher,
            max_sources=1,
        )
    return outcome


def query(tmp_path: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(tmp_path / "prices.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def with_linux_prices(body: bytes, **prices: object) -> bytes:
    """The feed with the first region's linux `prices` of each named size replaced (size with _ for .)."""
    document = json.loads(body)
    for group in document["config"]["regions"][0]["instanceTypes"]:
        for size in group["sizes"]:
            if (name := size["size"].replace(".", "_")) in prices:
                next(c for c in size["valueColumns"] if c["name"] == "linux")["prices"] = prices[name]
    return json.dumps(document).encode()


def test_the_recorded_feed_with_no_landed_regions_lands_inf1_and_refuses_the_rest_by_name(server, tmp_path):
    outcome = refresh_spot_alone(server, RECORDED_SPOT.read_bytes(), tmp_path)
    assert (outcome.status, outcome.error) == ("landed", None)
    # inf1's chip counts come from the catalog; g4dn and p4d need the price list's attributes, and none landed.
    landed = query(tmp_path, "SELECT DISTINCT family, accelerator_count_basis FROM aws_pricelist_price_history")
    assert landed == [("inf1", "catalog")]
    assert outcome.counts["price_rows"] == 20 and outcome.refused == 38
    refused = [w.removeprefix(REFUSED + " ").removesuffix(KEPT) for w in outcome.warnings if w.startswith(REFUSED)]
    assert len(refused) == 38
    assert "us-east-1 g4dn.xlarge: no attributes landed and no curated entry" in refused
    assert "eu-west-1 p4d.24xlarge: no attributes landed and no curated entry" in refused
    assert {line.split()[1].split(":")[0] for line in refused} == set(UNPRICEABLE)
    assert {line.split()[0] for line in refused} == set(RECORDED_REGIONS)
    logged = query(tmp_path, "SELECT outcome, error, len(warnings) FROM fetch_log WHERE source_id = 'aws_spot'")
    assert logged == [("landed", None, 38)]


@pytest.mark.parametrize(
    ("prices", "reason"),
    [
        ({}, "no USD price (prices: {})"),
        ({"EUR": "0.1"}, "no USD price (prices: {'EUR': '0.1'})"),
        (None, "no USD price (prices: None)"),
        ({"USD": "call us"}, "USD price 'call us' is not a number"),
        ({"USD": "-0.5"}, "USD price '-0.5' is not a price"),
        ({"USD": "NaN"}, "USD price 'NaN' is not a price"),
        ({"USD": None}, "USD price 'None' is not a number"),
    ],
)
def test_a_row_whose_price_is_no_price_is_refused_with_why(prices, reason):
    batch = parse_spot(with_linux_prices(SPOT.read_bytes(), g5_xlarge=prices), "aws_spot")
    assert [str(row) for row in batch.refused] == [f"spot us-east-1 g5.xlarge: {reason}"]
    assert "g5.xlarge" not in {q.instance_type for q in batch.pending if q.region_code == "us-east-1"}
    assert {q.instance_type for q in batch.pending if q.region_code == "us-east-1"} >= {"g6.xlarge", "trn1.2xlarge"}


def test_no_price_and_a_bad_price_outside_the_allowlist_refuse_nothing():
    body = with_linux_prices(SPOT.read_bytes(), g5_xlarge={"USD": "N/A*"}, m5_large={"USD": "call us"})
    batch = parse_spot(body, "aws_spot")
    assert batch.refused == []
    assert ("us-east-1", "g5.xlarge") not in {(q.region_code, q.instance_type) for q in batch.pending}


def test_a_refused_row_keeps_its_last_version_current_and_the_refresh_exits_1(server, tmp_path):
    pricelist = PriceList(server)
    refresh(pricelist, tmp_path, pricelist.spot_source(SPOT.read_bytes()))
    current = "SELECT hourly_usd, fetch_id FROM aws_pricelist_price_history WHERE source_id = 'aws_spot' AND "
    current += "region_code = 'us-east-1' AND instance_type = '{}' AND valid_to IS NULL"
    (g5_before,) = query(tmp_path, current.format("g5.xlarge"))
    bad = with_linux_prices(SPOT.read_bytes(), g5_xlarge={"USD": "call us"}, g6_xlarge={"USD": "0.3700"})
    outcome = refresh_spot_alone(server, bad, tmp_path)
    assert (outcome.status, outcome.refused) == ("landed", 1)
    assert query(tmp_path, current.format("g5.xlarge")) == [g5_before]  # still current, as landed before
    (g6,) = query(tmp_path, current.format("g6.xlarge"))
    assert g6 == (Decimal("0.3700"), outcome.fetch_id)  # the rest of the feed landed
    closed = "SELECT count(*) FROM aws_pricelist_price_history WHERE source_id = 'aws_spot' AND valid_to IS NOT NULL"
    assert query(tmp_path, closed) == [(1,)]  # g6.xlarge's old price only


def test_the_cli_refresh_of_a_feed_with_refused_lands_the_rest_and_exits_1(server, tmp_path):
    declared = next(s for s in load_sources() if s.id == "aws_spot")
    server.set(f"/{declared.sample}", Reply(body=RECORDED_SPOT.read_bytes(), content_type="application/json"))
    sources = write_sources_file(tmp_path / "sources.toml", [declared], server.url("").rstrip("/"))
    command = [str(RATECARD), "refresh", "--sources", str(sources), "--db", str(tmp_path / "prices.duckdb")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "0 failed, 38 row(s) or table(s) refused (named in the details)" in " ".join(result.stdout.split())
    assert query(tmp_path, "SELECT count(*) FROM aws_pricelist_price_history") == [(20,)]


def test_a_lambda_page_with_one_unreadable_table_lands_the_other_and_names_it(server, tmp_path):
    page = soup()
    split_on_demand_table(page).find("thead").find(string=lambda text: "Price" in text).replace_with("Cost")
    server.set("/pricing", Reply(body=render(page), content_type="text/html; charset=utf-8"))
    declared = next(s for s in load_sources() if s.id == "gpu_lambda")
    outcome = refresh_alone(
        SourceSpec.model_validate(declared.model_dump() | {"url": server.url("/pricing")}), tmp_path
    )
    assert (outcome.status, outcome.error, outcome.refused) == ("landed", None, 1)
    refused = [w for w in outcome.warnings if "refused, not landed" in w]
    assert refused == [
        "[gpu_lambda] refused, not landed: the 'On-Demand' tab's table 2 of 2, not read: required column(s) price "
        "missing; the closest table has headers ['GPU', 'VRAM / GPU', 'vCPUs', 'RAM', 'Storage', 'Cost', '']"
    ]
    landed = query(tmp_path, "SELECT listing FROM gpu_listing_history WHERE price_kind = 'on_demand' ORDER BY 1")
    assert landed == [("8x NVIDIA A100 SXM 80GB",), ("8x NVIDIA B200 SXM6",), ("8x NVIDIA H100 SXM",)]
    assert query(tmp_path, "SELECT warnings FROM fetch_log WHERE source_id = 'gpu_lambda'") == [(refused,)]
