"""The types as the data describes them: counts and memory from the price list's own GPU attributes, curated
entries only where the data lacks or gets something wrong, spot quotes priced from the landed attributes, and an
allowlisted type that cannot be priced failing its source by name, over real HTTP into a real DuckDB file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines.errors import ParseError
from pipelines.pricelist.checks import UnpricedTypes, check_priced
from pipelines.pricelist.curated import load_curated
from pipelines.pricelist.families import DEFAULT_FAMILIES, allowed, family_of
from pipelines.pricelist.offer_csv import parse_offer_csv
from pipelines.pricelist.records import CountBasis, MemoryBasis, PriceListBatch
from pipelines.refresh.one_source import SourceOutcome
from tests.support.localserver import LocalServer
from tests.support.pricelist_files import SPOT, read_sample, rewritten, sample, write_rows
from tests.support.pricelist_server import REGIONS, PriceList, refresh, unit


def parse(path: Path, region: str = "us-east-1") -> PriceListBatch:
    return parse_offer_csv(path, f"aws_pricelist_{region.replace('-', '_')}", region_code=region)


def by_type(batch: PriceListBatch) -> dict[str, object]:
    return {p.instance_type: p for p in batch.prices if p.price_kind == "on_demand"}


def test_every_curated_entry_says_why_and_names_no_figure_the_data_gives():
    curated = load_curated()
    assert curated.types and all(entry.why for entry in curated.types.values())
    # Whole NVIDIA counts come from the data: only Neuron types and fractional GPUs are curated.
    assert {family_of(t) for t in curated.types} == {"trn1", "trn1n", "trn2", "inf1", "inf2", "g6f"}
    assert curated.accelerator("g4dn.xlarge") == "T4" and curated.accelerator("m5.large") is None


def test_a_type_the_curated_figures_never_listed_is_priced_from_the_price_lists_attributes():
    g4dn = by_type(parse(sample("us-east-1")))["g4dn.12xlarge"]
    assert (g4dn.accelerator, g4dn.accelerator_count, g4dn.accelerator_count_basis) == ("T4", 4, CountBasis.PRICE_LIST)
    assert (g4dn.accelerator_memory_printed, g4dn.accelerator_memory_basis) == ("64 GB", MemoryBasis.PRICE_LIST)
    assert g4dn.usd_per_accelerator_hour == Decimal("3.912") / 4


def test_a_fractional_gpu_is_priced_per_whole_gpu_hour_by_its_share():
    g6f = by_type(parse(sample("us-east-1")))["g6f.large"]
    assert (g6f.accelerator_count, g6f.accelerator_share, g6f.price_list_gpu) == (1, Decimal("0.125"), "0.125")
    assert g6f.usd_per_accelerator_hour == Decimal("0.2012") * 8  # a whole L4-hour at this rate


def test_the_types_list_what_the_file_says_and_what_is_curated():
    types = {t.instance_type: t for t in parse(sample("us-east-1")).types}
    assert types["p5.48xlarge"].price_list_gpu_memory == "640 GB HBM3" and types["p5.48xlarge"].curated_why is None
    inf2 = types["inf2.24xlarge"]  # GPU printed 0: the curated Neuron count, with its reason
    assert (inf2.price_list_gpu, inf2.accelerator_count, inf2.accelerator_count_basis) == ("0", 6, CountBasis.CATALOG)
    assert "Neuron" in inf2.curated_why
    assert "m5.large" not in types


def test_an_allowlisted_type_without_a_count_fails_its_source_naming_it(tmp_path):
    path = rewritten(tmp_path, "us-east-1", lambda r: r["Instance Type"].startswith("g4dn."), GPU="")
    batch = parse(path)
    assert not [p for p in batch.prices if p.family == "g4dn"]
    with pytest.raises(UnpricedTypes) as caught:
        check_priced(batch)
    message = str(caught.value)
    assert "g4dn.xlarge" in message and "g4dn.12xlarge" in message and "us-east-1" in message
    assert "aws_pricelist_us_east_1" in message and "curated.toml" in message


def test_every_allowlisted_family_in_the_samples_can_be_priced():
    """Each allowlisted type with an on-demand Linux row in a sample region is priced: none is dropped."""
    for region in ("us-east-1", "us-east-2"):
        batch = parse(sample(region), region)
        assert batch.unpriced == []
        _, _, rows = read_sample(region)
        offered = {
            r["Instance Type"]
            for r in rows
            if allowed(r["Instance Type"], DEFAULT_FAMILIES)
            and r["TermType"] == "OnDemand"
            and r["Operating System"] == "Linux"
            and r["Tenancy"] == "Shared"
            and r["CapacityStatus"] == "Used"
            and r["Pre Installed S/W"] == "NA"
            and not r["operation"].endswith(":CB")
            and Decimal(r["PricePerUnit"]) > 0
        }
        assert offered and offered == set(by_type(batch)), offered ^ set(by_type(batch))


# The refresh path: the regions and the spot feed from one local server, into one DuckDB file.


@pytest.fixture
def pricelist() -> Iterator[PriceList]:
    with LocalServer() as server:
        yield PriceList(server)


def refresh_with_spot(pricelist: PriceList, tmp_path: Path, spot: bytes, *more: str) -> dict[str, SourceOutcome]:
    """The spot feed (listed first: it must still wait for the regions) and the price list, in one refresh."""
    source = pricelist.spot_source(spot)
    if more:
        source = source.model_copy(update={"options": {"families": [*DEFAULT_FAMILIES, *more]}})
    return refresh(pricelist, tmp_path, source)


def query(tmp_path: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(tmp_path / "prices.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_spot_quotes_take_their_figures_from_the_regions_landed_in_the_same_refresh(pricelist, tmp_path):
    outcomes = refresh_with_spot(pricelist, tmp_path, SPOT.read_bytes())
    assert {k: o.status for k, o in outcomes.items()} == {**{unit(r): "landed" for r in REGIONS}, "aws_spot": "landed"}
    assert list(outcomes)[-1] == "aws_spot"  # after every region
    assert not [w for w in outcomes["aws_spot"].warnings if "no row" in w or "g4dn" in w]
    g4dn = query(
        tmp_path,
        """SELECT instance_type, accelerator, accelerator_count, accelerator_count_basis, accelerator_memory_printed,
                  usd_per_accelerator_hour_4dp
           FROM aws_pricelist_price_history WHERE source_id = 'aws_spot' AND family = 'g4dn' AND valid_to IS NULL
           ORDER BY instance_type""",
    )
    assert g4dn == [
        ("g4dn.12xlarge", "T4", 4, "price_list", "64 GB", Decimal("0.4081")),
        ("g4dn.xlarge", "T4", 1, "price_list", "16 GB", Decimal("0.2104")),
    ]
    types = query(
        tmp_path, "SELECT count(*), count(curated_why) FROM aws_instance_types WHERE region_code = 'us-east-1'"
    )
    assert types[0][0] == 16 and 0 < types[0][1] < 16


def test_a_spot_type_no_price_list_describes_is_refused_by_name_and_the_rest_of_the_feed_lands(pricelist, tmp_path):
    document = json.loads(SPOT.read_bytes())
    region = document["config"]["regions"][0]
    region["instanceTypes"][-1]["sizes"].append(
        {"size": "g7x.8xlarge", "valueColumns": [{"name": "linux", "prices": {"USD": "1.5"}}]}
    )
    outcomes = refresh_with_spot(pricelist, tmp_path, json.dumps(document).encode(), "g7x")  # admitted, priced nowhere
    spot = outcomes["aws_spot"]
    assert (spot.status, spot.error, spot.refused) == ("landed", None, 1)
    refused = [w for w in spot.warnings if "refused, not landed" in w]
    assert refused == [
        f"[aws_spot] refused, not landed: spot {region['region']} g7x.8xlarge: no attributes landed and no curated "
        "entry (its last landed version, if any, stays current)"
    ]
    assert all(outcomes[unit(r)].status == "landed" for r in REGIONS)
    landed = "SELECT count(*), count(*) FILTER (family = 'g7x') FROM aws_pricelist_price_history WHERE source_id = "
    assert query(tmp_path, landed + "'aws_spot'") == [(spot.counts["price_rows"], 0)] and spot.counts["price_rows"]
    logged = query(tmp_path, "SELECT outcome, error, warnings FROM fetch_log WHERE source_id = 'aws_spot'")
    assert logged[0][:2] == ("landed", None) and refused[0] in logged[0][2]


# Whole-file sanity: every row of the file, and the version its index entry names.


def test_a_file_whose_dropped_rows_name_another_region_is_refused_naming_it(tmp_path):
    # Only an m5 row (outside the allowlist, never kept) names eu-west-3: the whole file is still refused.
    path = rewritten(tmp_path, "us-east-1", lambda r: r["Instance Type"] == "m5.large", Region_Code="eu-west-3")
    with pytest.raises(ParseError, match=r"index gave this file for us-east-1, but its rows also name eu-west-3"):
        parse(path)


def test_the_all_regions_file_is_refused_for_one_region(tmp_path):
    meta, header, rows = read_sample("us-east-1")
    others = [{**row, "Region Code": "us-east-2"} for row in read_sample("us-east-2")[2]]
    path = write_rows(tmp_path / "all.csv", meta, header, [*rows, *others])
    with pytest.raises(ParseError, match="all-regions file"):
        parse(path)


def test_a_file_of_another_version_than_its_index_entry_is_refused_saying_both():
    with pytest.raises(ParseError, match=r"prints Version 20260928184207, but the region index named version 2026"):
        parse_offer_csv(
            sample("us-east-1"), "aws_pricelist_us_east_1", region_code="us-east-1", index_version="20261028000000"
        )
    agreeing = parse_offer_csv(
        sample("us-east-1"), "aws_pricelist_us_east_1", region_code="us-east-1", index_version="20260928184207"
    )
    assert agreeing.prices


def test_a_stale_mirror_behind_a_new_index_stamp_is_quarantined_and_the_region_keeps_its_prices(pricelist, tmp_path):
    assert refresh(pricelist, tmp_path)[unit("us-east-2")].status == "landed"
    pricelist.publish("us-east-2", sample("us-east-2").read_bytes(), "20261028000000")  # the old file, new stamp
    outcome = refresh(pricelist, tmp_path)[unit("us-east-2")]
    assert outcome.status == "quarantined" and "named version 20261028000000" in str(outcome.error)
    open_rows = query(
        tmp_path,
        "SELECT count(*) FROM aws_pricelist_price_history WHERE region_code = 'us-east-2' AND valid_to IS NULL",
    )
    assert open_rows[0][0] > 0
