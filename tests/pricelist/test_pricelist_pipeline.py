"""The price-list source end to end over HTTP on 127.0.0.1: the region index leads to one unit per region, each
fetched, checked and landed (or quarantined) on its own; an unchanged region is not downloaded again; a broken
region is quarantined loudly while the others land; `ratecard reparse` replays the archived offer files."""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import duckdb
import httpx
import pytest

from pipelines.errors import FetchError
from pipelines.fetch.archive import Archive, open_body
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.fetch.offline import serve_directory
from pipelines.orchestration.resources import FetcherResource, SourcesResource, WarehouseResource
from pipelines.pricelist.region_index import RegionOffer
from pipelines.pricelist.region_units import region_unit
from pipelines.refresh.one_source import discard_body, fetch_source
from pipelines.refresh.reparse import reparse_source
from pipelines.sources.file import SourceSpec
from tests.support.localserver import LocalServer
from tests.support.pricelist_files import kept_row, read_sample, sample, write_rows
from tests.support.pricelist_server import (
    INDEX,
    NEWER,
    RATECARD,
    REGIONS,
    STAMP,
    PriceList,
    offer_path,
    refresh,
    republished,
    unit,
)
from tests.support.sourcefiles import write_sources_file


@pytest.fixture
def pricelist() -> Iterator[PriceList]:
    with LocalServer() as server:
        yield PriceList(server)


def query(tmp_path: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(tmp_path / "prices.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_each_region_lands_on_its_own_and_an_unchanged_region_is_not_downloaded_again(pricelist, tmp_path):
    first = refresh(pricelist, tmp_path)
    assert {k: o.status for k, o in first.items()} == {unit(r): "landed" for r in REGIONS}
    assert [pricelist.hits(r) for r in REGIONS] == [1, 1, 1]

    second = refresh(pricelist, tmp_path)
    assert {k: o.status for k, o in second.items()} == {unit(r): "unchanged" for r in REGIONS}
    assert [pricelist.hits(r) for r in REGIONS] == [1, 1, 1]  # the index was read again, no offer file
    assert pricelist.server.hits(INDEX) == 2
    logged = query(tmp_path, "SELECT outcome, sha256, bytes FROM fetch_log ORDER BY fetch_id")
    assert logged[3:] == [("unchanged", None, None)] * 3, logged
    assert all("not downloaded again" in o.warnings[0] for o in second.values())

    pricelist.publish("us-east-2", republished("us-east-2", NEWER, "2026-10-28T00:00:00Z"), NEWER)
    third = refresh(pricelist, tmp_path)
    assert [third[unit(r)].status for r in ("eu-south-2", "us-east-1")] == ["unchanged", "unchanged"]
    assert third[unit("us-east-2")].ok  # the new file was fetched and read; its prices are the same
    assert pricelist.hits("us-east-2") == 1 and pricelist.hits("us-east-1") == 1
    assert third[unit("us-east-2")].sha256 is not None and third[unit("us-east-1")].sha256 is None
    versions = query(tmp_path, "SELECT region_code, offer_version FROM aws_pricelist_offers WHERE valid_to IS NULL")
    assert dict(versions)["us-east-2"] == NEWER and dict(versions)["us-east-1"] == STAMP


def test_the_regions_option_limits_what_is_fetched(pricelist, tmp_path):
    outcomes = refresh(pricelist, tmp_path, regions=["us-east-1"])
    assert list(outcomes) == [unit("us-east-1")] and outcomes[unit("us-east-1")].status == "landed"
    assert [pricelist.hits(r) for r in REGIONS] == [0, 1, 0]


def test_the_family_allowlist_option_keeps_only_those_families(pricelist, tmp_path):
    refresh(pricelist, tmp_path, regions=["us-east-1"], families=["trn1"])
    families = query(tmp_path, "SELECT DISTINCT family FROM aws_pricelist_price_history")
    assert families == [("trn1",)]


def truncated(region: str) -> bytes:
    body = sample(region).read_bytes()
    return body[: body.index(b"\n", len(body) // 2) - 10]  # a download cut short, mid-line


def duplicated_on_demand(region: str, tmp_path: Path) -> bytes:
    """A Linux on-demand row for trn1.32xlarge twice, under another SKU at another price."""
    meta, header, rows = read_sample(region)
    (kept,) = [row for row in rows if kept_row(row, "trn1.32xlarge")]
    rows.append({**kept, "SKU": "DUPLICATESKU0000", "PricePerUnit": "99.0000000000"})
    return write_rows(tmp_path / f"{region}.csv", meta, header, rows).read_bytes()


@pytest.mark.parametrize(
    ("broken", "said", "stage"),
    [("truncated", "truncated download", "parse"), ("duplicate", "more than one on-demand row", "validate")],
)
def test_a_broken_region_is_quarantined_loudly_while_the_others_land(pricelist, tmp_path, broken, said, stage):
    body = truncated("us-east-1") if broken == "truncated" else duplicated_on_demand("us-east-1", tmp_path)
    pricelist.publish("us-east-1", body)
    outcomes = refresh(pricelist, tmp_path)
    bad = outcomes[unit("us-east-1")]
    assert bad.status == "quarantined" and said in str(bad.error) and unit("us-east-1") in str(bad.error)
    assert broken != "duplicate" or "DUPLICATESKU0000" in str(bad.error)  # the gate names the SKUs
    assert [outcomes[unit(r)].status for r in ("eu-south-2", "us-east-2")] == ["landed", "landed"]
    assert query(tmp_path, "SELECT source_id, stage FROM quarantine") == [(unit("us-east-1"), stage)]
    landed = query(tmp_path, "SELECT DISTINCT region_code FROM aws_pricelist_price_history")
    assert landed == [("us-east-2",)]  # eu-south-2 prices no accelerator; us-east-1 landed nothing


def test_a_publication_date_going_back_is_refused_and_the_last_good_version_stays(pricelist, tmp_path):
    refresh(pricelist, tmp_path)
    before = query(tmp_path, "SELECT count(*) FROM aws_pricelist_price_history WHERE valid_to IS NULL")
    pricelist.publish("us-east-1", republished("us-east-1", NEWER, "2026-08-01T00:00:00Z"), NEWER)
    pricelist.publish("us-east-2", republished("us-east-2", NEWER, "2026-10-28T00:00:00Z"), NEWER)
    outcomes = refresh(pricelist, tmp_path)
    refused = outcomes[unit("us-east-1")]
    assert refused.status == "quarantined" and "older than the one already landed" in str(refused.error)
    assert outcomes[unit("us-east-2")].ok and outcomes[unit("us-east-2")].sha256 is not None
    assert query(tmp_path, "SELECT count(*) FROM aws_pricelist_price_history WHERE valid_to IS NULL") == before


def test_offer_files_are_archived_compressed_and_reparse_replays_them(pricelist, tmp_path):
    outcomes = refresh(pricelist, tmp_path)
    archive, sha = Archive(tmp_path / "archive"), outcomes[unit("us-east-1")].sha256 or ""
    assert archive.path_for(sha).read_bytes()[:4] == b"\x28\xb5\x2f\xfd"  # zstd
    assert archive.get(sha) == sample("us-east-1").read_bytes()
    before = query(tmp_path, "SELECT region_code, count(*) FROM aws_pricelist_price_history GROUP BY 1 ORDER BY 1")
    command = [str(RATECARD), "reparse", "--source", "aws_pricelist", "--db", str(tmp_path / "prices.duckdb")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    for region in REGIONS:
        assert f"{unit(region)}: 1 fetches replayed: 1 landed" in result.stdout, result.stdout
    after = query(tmp_path, "SELECT region_code, count(*) FROM aws_pricelist_price_history GROUP BY 1 ORDER BY 1")
    assert after == before and after


def test_reparse_of_a_truncated_region_reads_its_archived_file_and_quarantines_it_again(pricelist, tmp_path):
    pricelist.publish("us-east-1", truncated("us-east-1"))
    refresh(pricelist, tmp_path)
    unit_spec = region_unit(
        pricelist.source(), RegionOffer("us-east-1", pricelist.server.url(offer_path("us-east-1")), "")
    )
    replayed = reparse_source(unit_spec, db_path=tmp_path / "prices.duckdb", archive=Archive(tmp_path / "archive"))
    assert (replayed.fetches, replayed.quarantined) == (1, 1)
    reasons = query(tmp_path, "SELECT reasons FROM quarantine")
    assert len(reasons) == 1 and "truncated download" in reasons[0][0][0]


def test_offline_samples_answer_at_the_paths_the_region_index_names():
    with serve_directory() as base:
        answer = httpx.get(base + offer_path("us-east-2"))
    assert answer.status_code == 200 and answer.content == sample("us-east-2").read_bytes()


def test_an_offer_file_streams_to_disk_under_its_own_cap_and_is_removed_after(pricelist, tmp_path, monkeypatch):
    # A temp folder of this test's own: another test process may be streaming the same region at the same time.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    region = region_unit(
        pricelist.source(), RegionOffer("us-east-1", pricelist.server.url(offer_path("us-east-1")), "")
    )
    expected = sample("us-east-1").read_bytes()
    with Fetcher(FetchSettings(max_attempts=1, max_bytes=1000)) as fetcher:  # the settings' cap: far too small
        result = fetch_source(region, fetcher)  # the source's own cap (max_bytes in sources.toml) applies
        assert result.body == b"" and result.body_file is not None and result.size == len(expected)
        with open_body(result.body_file) as spooled:  # zstd-compressed as it arrived
            assert spooled.read() == expected and result.sha256 == hashlib.sha256(expected).hexdigest()
        discard_body(result)
        assert not result.body_file.exists()
        small = SourceSpec.model_validate(region.model_dump() | {"max_bytes": 1000})
        with pytest.raises(FetchError, match="exceeds 1000 bytes"):
            fetch_source(small, fetcher)
    assert result.body_file.parent == tmp_path
    assert not list(tmp_path.glob("ratecard-aws_pricelist_us_east_1-*"))


def test_the_dagster_asset_lands_each_region_and_fails_loudly_naming_a_broken_one(pricelist, tmp_path):
    from assets.fan_out import build_index_asset

    pricelist.publish("us-east-1", truncated("us-east-1"))
    source = pricelist.source()
    resources = {
        "warehouse": WarehouseResource(db_path=str(tmp_path / "prices.duckdb")),
        "fetcher": FetcherResource(max_attempts=1),
        "sources": SourcesResource(
            sources_file=str(write_sources_file(tmp_path / "sources.toml", [source], pricelist.server.base_url))
        ),
    }
    failed = dg.materialize([build_index_asset(source)], resources=resources, raise_on_error=False)
    assert not failed.success
    failure = next(e for e in failed.all_events if e.is_step_failure).step_failure_data.error
    assert "aws_pricelist_us_east_1" in failure.message and "truncated download" in failure.message
    landed = query(tmp_path, "SELECT source_id, outcome FROM fetch_log ORDER BY source_id")
    assert landed == [(unit(r), "quarantined" if r == "us-east-1" else "landed") for r in sorted(REGIONS)]

    pricelist.publish("us-east-1", republished("us-east-1", NEWER, "2026-10-28T00:00:00Z"), NEWER)
    fixed = dg.materialize([build_index_asset(source)], resources=resources)
    (materialised,) = fixed.asset_materializations_for_node("sources__aws_pricelist")
    assert materialised.metadata["units_landed"].value == 1 and materialised.metadata["units_unchanged"].value == 2
    assert [pricelist.hits(r) for r in REGIONS] == [1, 1, 1]  # the two good regions were not downloaded again


def test_the_dagster_definitions_refresh_the_price_list_region_by_region(sources_file, db_path):
    from pipelines.definitions import build_definitions

    defs = build_definitions(sources_file, db_path, fetcher=FetcherResource(max_attempts=1))
    asset = defs.resolve_assets_def(dg.AssetKey(["sources", "aws_pricelist"]))
    assert set(asset.group_names_by_key.values()) == {"aws_pricelist_sources"}
    result = dg.materialize([asset], raise_on_error=False)  # resources come bound
    assert result.success
    with duckdb.connect(str(db_path), read_only=True) as con:
        logged = con.execute("SELECT source_id, outcome FROM fetch_log ORDER BY source_id").fetchall()
    assert logged == [(unit(r), "landed") for r in sorted(REGIONS)]
