"""The regional offer CSV parser on the samples in the real shape: filters, decoys, reserved, gates."""

from __future__ import annotations

import gzip
import hashlib
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from pipelines.adapters import parser_for
from pipelines.errors import MissingColumnError, ParseError
from pipelines.pricelist.checks import DuplicateOnDemand, check_one_on_demand, on_demand_duplicates
from pipelines.pricelist.offer_csv import parse_offer_csv
from pipelines.pricelist.records import CountBasis, MemoryBasis, PriceListBatch, PriceListKind, PurchaseOption
from pipelines.sources.file import load_sources, sample_path
from tests.support.pricelist_files import kept_row, read_sample, rewritten, sample, write_rows


def parse(path: Path, region: str = "us-east-1", **options: object) -> PriceListBatch:
    return parse_offer_csv(path, f"aws_price_list_{region}", region_code=region, **options)  # type: ignore[arg-type]


def on_demand(batch: PriceListBatch) -> dict[str, Decimal]:
    return {p.instance_type: p.hourly_usd for p in batch.prices if p.price_kind is PriceListKind.ON_DEMAND}


@pytest.fixture(scope="module")
def us_east_1() -> PriceListBatch:
    return parse(sample("us-east-1"))


def test_trn1_32xlarge_on_demand_equals_the_product_page_sample(us_east_1):
    page = next(s for s in load_sources() if s.sample == "aws/trn1.html")
    printed = parser_for(page.adapter)(sample_path(page).read_bytes(), page)
    page_price = next(
        p.usd_per_instance_hour
        for p in printed.prices
        if p.instance_type == "trn1.32xlarge" and p.price_kind.value == "on_demand"
    )
    assert on_demand(us_east_1)["trn1.32xlarge"] == page_price == Decimal("21.50")


def test_batch_carries_version_publication_date_and_shape(us_east_1):
    assert us_east_1.offer_version == "20260928184207"
    assert us_east_1.publication_date.isoformat() == "2026-09-28T18:42:07+00:00"
    assert us_east_1.region_code == "us-east-1" and us_east_1.shape and len(us_east_1.shape) == 16
    assert all(p.location == "US East (N. Virginia)" for p in us_east_1.prices)


def test_exactly_the_accelerator_types_with_an_on_demand_price(us_east_1):
    # m5/c5 are outside the allowlist and p5e.48xlarge has only Capacity Block rows; g6f.large (a fractional
    # GPU) and the types the curated catalog never listed (g4dn, gr6, ...) are priced from the price list.
    assert sorted(on_demand(us_east_1)) == [
        "g4dn.12xlarge",
        "g4dn.xlarge",
        "g5.12xlarge",
        "g5.xlarge",
        "g6.xlarge",
        "g6e.xlarge",
        "g6f.large",
        "gr6.4xlarge",
        "inf1.xlarge",
        "inf2.24xlarge",
        "inf2.8xlarge",
        "inf2.xlarge",
        "p4d.24xlarge",
        "p5.48xlarge",
        "trn1.2xlarge",
        "trn1.32xlarge",
    ]


# Each decoy: a column of the kept row and a value the sample really carries for trn1.32xlarge.
DECOYS = [
    ("Tenancy", "Dedicated"),
    ("Tenancy", "Host"),
    ("Operating System", "Windows"),
    ("Operating System", "Red Hat Enterprise Linux"),
    ("Operating System", "SUSE"),
    ("Operating System", "Ubuntu Pro"),
    ("License Model", "Bring your own license"),
    ("Pre Installed S/W", "SQL Std"),
    ("CapacityStatus", "AllocatedCapacityReservation"),
    ("CapacityStatus", "UnusedCapacityReservation"),
    ("CapacityStatus", "AllocatedHost"),
    ("MarketOption", "CapacityBlock"),
]


@pytest.mark.parametrize(("column", "value"), DECOYS, ids=[f"{c}={v}" for c, v in DECOYS])
def test_each_decoy_is_in_the_sample_and_each_filter_drops_it(tmp_path, us_east_1, column, value):
    _, _, rows = read_sample("us-east-1")
    decoys = [r for r in rows if r["Instance Type"] == "trn1.32xlarge" and r[column] == value]
    assert decoys, f"the sample carries no trn1.32xlarge row with {column}={value}"
    kept = next(p for p in us_east_1.prices if p.instance_type == "trn1.32xlarge" and p.price_kind == "on_demand")
    assert kept.sku not in {r["SKU"] for r in decoys}
    # The filter alone decides: the kept row given the decoy's value is dropped, and nothing replaces it.
    assert_filter_drops_trn1(tmp_path, column, value)


def assert_filter_drops_trn1(tmp_path: Path, column: str, value: str) -> None:
    changed = rewritten(tmp_path, "us-east-1", lambda r: kept_row(r, "trn1.32xlarge"), **{_arg(column): value})
    assert "trn1.32xlarge" not in on_demand(parse(changed))


def _arg(column: str) -> str:
    return column.replace(" ", "_").replace("/", "_")


def test_byol_decoy_is_at_the_linux_price(us_east_1):
    _, _, rows = read_sample("us-east-1")
    byol = next(
        r
        for r in rows
        if r["Instance Type"] == "trn1.32xlarge"
        and r["License Model"] == "Bring your own license"
        and r["Unit"] == "Hrs"
    )
    assert Decimal(byol["PricePerUnit"]) == on_demand(us_east_1)["trn1.32xlarge"]


def test_capacity_block_only_type_has_no_on_demand_row(us_east_1):
    _, _, rows = read_sample("us-east-1")
    p5e = [r for r in rows if r["Instance Type"] == "p5e.48xlarge"]
    assert p5e and {r["MarketOption"] for r in p5e} == {"CapacityBlock"}
    assert {r["PricePerUnit"] for r in p5e if r["Operating System"] == "Linux"} == {"0.0000000000"}
    assert not [p for p in us_east_1.prices if p.instance_type == "p5e.48xlarge"]


def test_a_priced_capacity_block_row_never_becomes_a_price(tmp_path):
    # Even with a fee and a MarketOption claiming OnDemand, an operation ending in :CB is a Capacity Block row.
    path = rewritten(
        tmp_path,
        "us-east-1",
        lambda r: r["Instance Type"] == "p5e.48xlarge" and r["Operating System"] == "Linux",
        PricePerUnit="31.4640000000",
        MarketOption="OnDemand",
    )
    assert "p5e.48xlarge" not in on_demand(parse(path))


def test_price_zero_means_not_offered(tmp_path):
    path = rewritten(tmp_path, "us-east-1", lambda r: kept_row(r, "trn1.2xlarge"), PricePerUnit="0.0000000000")
    batch = parse(path)
    assert "trn1.2xlarge" not in on_demand(batch)
    assert any(p.instance_type == "trn1.2xlarge" and p.price_kind == "reserved" for p in batch.prices)


def test_reserved_terms_pair_hourly_and_upfront_as_printed(us_east_1):
    reserved = [p for p in us_east_1.prices if p.instance_type == "trn1.32xlarge" and p.price_kind == "reserved"]
    assert len(reserved) == 12
    assert {(p.lease_years, p.purchase_option, p.offering_class) for p in reserved} == {
        (y, o, c) for y in (1, 3) for o in PurchaseOption for c in ("standard", "convertible")
    }
    partial = next(
        p
        for p in reserved
        if p.lease_years == 1 and p.purchase_option == "Partial Upfront" and p.offering_class == "standard"
    )
    assert (partial.hourly_usd, partial.upfront_usd) == (Decimal("7.31"), Decimal("62152"))
    assert partial.effective_usd_per_instance_hour == Decimal("14.404977168949771689")  # 7.31 + 62152 / 8760
    all_up = next(
        p
        for p in reserved
        if p.lease_years == 3 and p.purchase_option == "All Upfront" and p.offering_class == "standard"
    )
    assert all_up.hourly_usd == 0 and all_up.upfront_usd == Decimal("231658")
    no_up = next(
        p
        for p in reserved
        if p.lease_years == 1 and p.purchase_option == "No Upfront" and p.offering_class == "standard"
    )
    assert no_up.upfront_usd is None and no_up.hourly_usd == Decimal("15.05")


def test_duplicate_on_demand_rows_are_refused_with_their_skus(tmp_path):
    meta, header, rows = read_sample("us-east-1")
    original = next(r for r in rows if kept_row(r, "p5.48xlarge"))
    twin = {**original, "SKU": "TWINTWINTWINTWIN", "RateCode": "TWINTWINTWINTWIN.JRTCKXETXF.6YS6EN2CT7"}
    path = write_rows(tmp_path / "dup.csv", meta, header, [*rows, twin])
    with pytest.raises(DuplicateOnDemand) as caught:
        check_one_on_demand(parse(path))  # the parser keeps both; the gate refuses the region
    assert caught.value.duplicates == {("us-east-1", "p5.48xlarge"): sorted([original["SKU"], "TWINTWINTWINTWIN"])}
    assert "p5.48xlarge" in str(caught.value) and "TWINTWINTWINTWIN" in str(caught.value)


def test_a_zero_priced_twin_is_not_a_duplicate(tmp_path):
    meta, header, rows = read_sample("us-east-1")
    original = next(r for r in rows if kept_row(r, "p5.48xlarge"))
    twin = {**original, "SKU": "ZEROZEROZEROZERO", "PricePerUnit": "0.0000000000"}  # 0: not offered
    batch = parse(write_rows(tmp_path / "zero.csv", meta, header, [*rows, twin]))
    p5 = [p for p in batch.prices if p.instance_type == "p5.48xlarge" and p.price_kind is PriceListKind.ON_DEMAND]
    assert [(p.sku, p.hourly_usd) for p in p5] == [(original["SKU"], Decimal(original["PricePerUnit"]))]
    assert on_demand_duplicates(batch.prices) == {}
    check_one_on_demand(batch)  # and the gate lets the region through


def test_catalog_count_disagreeing_with_gpu_is_a_warning_naming_both(tmp_path):
    path = rewritten(tmp_path, "us-east-1", lambda r: r["Instance Type"] == "inf1.xlarge", GPU="2")
    batch = parse(path)
    warning = next(w for w in batch.warnings if "inf1.xlarge" in w)
    assert "curated figures say 1" in warning and "GPU says 2" in warning
    inf1 = next(p for p in batch.prices if p.instance_type == "inf1.xlarge")
    assert (inf1.accelerator_count, inf1.accelerator_count_basis, inf1.price_list_gpu) == (1, CountBasis.CATALOG, "2")


def test_agreeing_counts_give_no_warning_but_a_zeroed_neuron_count_does(us_east_1):
    # inf2.24xlarge's GPU is printed 0 in the sample, as AWS does for Neuron types in places.
    disagreements = [w for w in us_east_1.warnings if "curated figures say" in w]
    assert len(disagreements) == 1 and "inf2.24xlarge" in disagreements[0] and "GPU says 0" in disagreements[0]


def test_memory_from_gpu_memory_when_given_else_the_catalog(us_east_1):
    by_type = {p.instance_type: p for p in us_east_1.prices if p.price_kind == "on_demand"}
    p5 = by_type["p5.48xlarge"]
    assert (p5.accelerator_memory_printed, p5.accelerator_memory_value, p5.accelerator_memory_unit) == (
        "640 GB HBM3",
        Decimal(640),
        "GB",
    )
    assert p5.accelerator_memory_basis is MemoryBasis.PRICE_LIST
    trn = by_type["trn1.2xlarge"]  # gpuMemory "NA": the curated 32 GB per chip x 1
    assert (trn.accelerator_memory_value, trn.accelerator_memory_basis) == (Decimal(32), MemoryBasis.CATALOG)


def test_region_without_accelerators_yields_an_empty_batch():
    batch = parse(sample("eu-south-2"), "eu-south-2")
    assert batch.prices == [] and batch.offer_version == "20260928184207"


def test_family_allowlist_option(us_east_1):
    batch = parse(sample("us-east-1"), families=("trn*",))
    assert {p.family for p in batch.prices} == {"trn1"}
    everything = parse(sample("us-east-1"), families=("*",))
    # Outside the accelerator families nothing gives an accelerator count: not an accelerator type, no row.
    assert any("m5.large: not an accelerator type" in w for w in everything.warnings)
    assert "m5.large" not in on_demand(everything) and everything.unpriced == []


def test_columns_are_found_by_name_not_position(tmp_path, us_east_1):
    meta, header, rows = read_sample("us-east-1")
    path = write_rows(tmp_path / "reordered.csv", meta, list(reversed(header)), rows)
    assert parse(path).prices == us_east_1.prices


def test_missing_column_is_named(tmp_path):
    meta, header, rows = read_sample("us-east-1")
    path = write_rows(tmp_path / "no-tenancy.csv", meta, [h for h in header if h != "Tenancy"], rows)
    with pytest.raises(MissingColumnError, match="tenancy"):
        parse(path)


def test_wrong_region_is_refused():
    with pytest.raises(ParseError, match="index gave this file for us-east-1, but its rows also name us-east-2"):
        parse(sample("us-east-2"), "us-east-1")


def test_truncated_file_is_a_parse_error(tmp_path):
    body = sample("us-east-1").read_bytes()
    cut = tmp_path / "cut.csv"
    cut.write_bytes(body[: len(body) // 2])
    with pytest.raises(ParseError, match="truncated"):
        parse(cut)


def test_truncated_inside_the_metadata_is_a_parse_error(tmp_path):
    cut = tmp_path / "head.csv"
    cut.write_bytes(b'"FormatVersion","v1.0"\n"Disclaimer","This pricing list\n')
    with pytest.raises(ParseError, match="the file ends inside its metadata and header"):
        parse(cut)


def test_truncated_gzip_is_a_parse_error(tmp_path):
    packed = gzip.compress(sample("us-east-1").read_bytes())
    whole, cut = tmp_path / "whole.csv.gz", tmp_path / "cut.csv.gz"
    whole.write_bytes(packed)
    cut.write_bytes(packed[: len(packed) // 2])
    assert on_demand(parse(whole))["trn1.32xlarge"] == Decimal("21.50")
    with pytest.raises(ParseError, match=r"cut\.csv\.gz: the file does not end with a newline: truncated download\?"):
        parse(cut)


def test_a_row_cut_short_mid_file_is_a_parse_error(tmp_path):
    meta, header, rows = read_sample("us-east-1")
    path = write_rows(tmp_path / "short.csv", meta, header, rows)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[100] = lines[100][: len(lines[100]) // 2] + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(ParseError, match="DuckDB"):
        parse(path)


# Filters no decoy of the samples exercises: a value the kept row is given makes its type vanish.
OTHER_FILTERS = [
    ("Product Family", "Dedicated Host"),
    ("Currency", "CNY"),
    ("TermType", "Spot"),
    ("Unit", "Quantity"),
    ("operation", "RunInstances:CB"),
]


@pytest.mark.parametrize(("column", "value"), OTHER_FILTERS, ids=[f"{c}={v}" for c, v in OTHER_FILTERS])
def test_each_other_filter_drops_the_row(tmp_path, us_east_1, column, value):
    assert "trn1.32xlarge" in on_demand(us_east_1)
    assert_filter_drops_trn1(tmp_path, column, value)


def test_an_archived_gzip_body_parses_like_the_file(us_east_1):
    body = gzip.compress(sample("us-east-1").read_bytes())
    batch = parse_offer_csv(body, "aws_price_list_us-east-1", region_code="us-east-1")
    assert batch.prices == us_east_1.prices


def test_a_price_that_is_no_amount_is_a_parse_error_naming_the_sku(tmp_path):
    path = rewritten(tmp_path, "us-east-1", lambda r: kept_row(r, "p5.48xlarge"), PricePerUnit="n/a")
    sku = next(r["SKU"] for r in read_sample("us-east-1")[2] if kept_row(r, "p5.48xlarge"))
    with pytest.raises(ParseError, match=f"SKU {sku} .*'n/a' is not an amount"):
        parse(path)


def test_unknown_reserved_terms_are_a_parse_error(tmp_path):
    def five_year(row: dict[str, str]) -> bool:
        return row["Instance Type"] == "inf2.xlarge" and row["LeaseContractLength"] == "3yr"

    with pytest.raises(ParseError, match="unknown terms"):
        parse(rewritten(tmp_path, "us-east-1", five_year, LeaseContractLength="5yr"))


def test_a_file_body_is_archived_before_it_is_read_and_an_archive_failure_is_raised(tmp_path):
    from pipelines.fetch.archive import Archive
    from pipelines.fetch.http import FetchResult
    from pipelines.refresh.one_source import archived

    offer = tmp_path / "offer.csv"
    offer.write_bytes(sample("us-east-1").read_bytes())
    digest = hashlib.sha256(offer.read_bytes()).hexdigest()
    result = FetchResult("src", "http://x/", "http://x/", 200, datetime.now(UTC), b"", digest, None, 0, 1, offer)
    archive = Archive(tmp_path / "archive")
    body = archived(result, archive)
    assert body == offer and parse(body).prices
    assert archive.verified_path(digest).exists()
    (tmp_path / "blocked").write_text("a file where the archive's folder should be")
    with pytest.raises(NotADirectoryError, match=r"Not a directory: .*blocked"):
        archived(result, Archive(tmp_path / "blocked"))  # nothing is parsed from a body that is not archived
