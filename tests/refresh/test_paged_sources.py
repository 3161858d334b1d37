"""A source whose answer is paged (Azure's Retail Prices API) through a whole refresh: every page lands as one
version; a page cut off halfway fails that source alone, naming the page, with its last good version kept; the same
pages again are an unchanged fetch. Where the source splits its answer, a later page failing reads each region on its
own: the regions read land, and the one that failed keeps its last good version, named."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import duckdb
import httpx

from pipelines.fetch.offline import pointed_at
from pipelines.fetch.split_pages import narrowed
from pipelines.sources.file import SourceSpec, load_sources
from tests.support.localserver import LocalServer, Reply
from tests.support.refreshing import refreshed_in
from tests.support.sourcefiles import later_pages, sample_routes, serve_samples

IDS = ("fx_ecb", "gpu_azure", "gpu_hyperstack")


def served(server: LocalServer) -> tuple[list[SourceSpec], str]:
    """The sources pointed at `server`, every sample route set; and the route of Azure's second page."""
    declared = [s for s in load_sources() if s.id in IDS]
    serve_samples(server, declared)
    azure = next(s for s in declared if s.id == "gpu_azure")
    (second, _), *_ = later_pages(azure)
    return pointed_at(declared, server.base_url), second


def refreshed(sources: list[SourceSpec], tmp_path: Path) -> dict[str, tuple[str, str]]:
    outcomes = refreshed_in(tmp_path, sources, max_sources=3, max_attempts=1)
    return {o.source_id: (o.status, str(o.error or "")) for o in outcomes}


def current_azure(tmp_path: Path) -> list[tuple]:
    with duckdb.connect(str(tmp_path / "prices.duckdb"), read_only=True) as con:
        return con.execute(
            """SELECT listing, region, price_kind, usd_per_gpu_hour, fetch_id FROM gpu_listing_history
               WHERE source_id = 'gpu_azure' AND valid_to IS NULL ORDER BY ALL"""
        ).fetchall()


def test_every_page_lands_and_a_page_cut_off_halfway_keeps_the_last_good_version(tmp_path):
    with LocalServer() as server:
        sources, second = served(server)
        first = refreshed(sources, tmp_path)
        assert {sid: status for sid, (status, _) in first.items()} == dict.fromkeys(IDS, "landed")
        landed = current_azure(tmp_path)
        # Rows of both pages: ND H100 v5 in eastus is on the first, ND H200 v5 on the second.
        assert len(landed) == 22 and {row[0] for row in landed} >= {
            "Standard_ND96isr_H100_v5",
            "Standard_ND96isr_H200_v5",
        }
        assert server.hits(second) == 1

        page = dict(sample_routes(next(s for s in sources if s.id == "gpu_azure")))[second].read_bytes()
        server.set(second, Reply(body=page[: len(page) // 2], content_type="application/json"))
        cut = refreshed(sources, tmp_path)
        status, error = cut["gpu_azure"]
        assert status == "fetch_failed"
        assert "[gpu_azure] fetch: page 2 of the answer cannot be read as a page, so no page of it lands" in error
        assert "it is not JSON" in error
        assert (cut["fx_ecb"][0], cut["gpu_hyperstack"][0]) == ("unchanged", "unchanged")  # the others as ever
        assert current_azure(tmp_path) == landed  # nothing of the first page landed alone

        server.set(second, Reply(body=page, content_type="application/json"))
        again = refreshed(sources, tmp_path)
    assert again["gpu_azure"] == ("unchanged", "")  # the same pages: the same envelope, the same hash
    assert current_azure(tmp_path) == landed


def with_its_query(azure: SourceSpec, server: LocalServer) -> SourceSpec:
    """Azure pointed at `server` with its real query, whose $filter a region narrows."""
    (declared,) = [s for s in load_sources() if s.id == azure.id]
    url = server.url(f"/{azure.sample}?{httpx.URL(str(declared.url)).query.decode()}")
    return SourceSpec.model_validate({**azure.model_dump(), "url": url})


def region_answer(pages: list[Path], region: str, moved: Decimal, dropped: int) -> bytes:
    """The sample's items in `region`, as one page: the first item's price times `moved`, item `dropped` left out."""
    items = [i for p in pages for i in json.loads(p.read_bytes())["Items"] if i["armRegionName"] == region]
    items[0]["retailPrice"] = float(Decimal(str(items[0]["retailPrice"])) * moved)
    del items[dropped]
    return json.dumps({"BillingCurrency": "USD", "Items": items, "NextPageLink": None, "Count": len(items)}).encode()


def test_a_later_page_failing_lands_each_region_read_on_its_own_and_names_the_region_that_failed(tmp_path):
    with LocalServer() as server:
        declared, second = served(server)
        sources = [with_its_query(s, server) if s.id == "gpu_azure" else s for s in declared]
        azure = next(s for s in sources if s.id == "gpu_azure")
        refreshed(sources, tmp_path)
        before = {(row[0], row[1], row[2]): row for row in current_azure(tmp_path)}
        pages = [path for _, path in sample_routes(azure)]
        server.set(second, Reply(status=500, body=b"internal error", content_type="text/plain"))
        for region, reply in (
            ("eastus", Reply(body=region_answer(pages, "eastus", Decimal("1.1"), 2), content_type="application/json")),
            ("westeurope", Reply(status=500, body=b"internal error", content_type="text/plain")),
        ):
            server.set(
                httpx.URL(narrowed("gpu_azure", str(azure.url), "armRegionName", region)).raw_path.decode(), reply
            )
        (outcome,) = [o for o in refreshed_in(tmp_path, sources, max_attempts=1) if o.source_id == "gpu_azure"]
    assert outcome.status == "landed" and outcome.error is None
    said = " | ".join(outcome.warnings)
    assert (
        "region westeurope: its own answer failed too, page 1 of the answer: gave up after 1 attempts: HTTP 500" in said
    )
    assert "the answer for every region failed (page 2 of the answer: gave up after 1 attempts: HTTP 500" in said
    after = {(row[0], row[1], row[2]): row for row in current_azure(tmp_path)}
    # westeurope keeps every price of its last good version, from the first fetch.
    assert {k: v for k, v in after.items() if k[1] == "westeurope"} == {
        k: v for k, v in before.items() if k[1] == "westeurope"
    }
    # eastus is its own answer, whole: one price moved (a new version), one item gone (closed), the rest unchanged.
    east_before = {k: v for k, v in before.items() if k[1] == "eastus"}
    east_after = {k: v for k, v in after.items() if k[1] == "eastus"}
    assert outcome.closed == 2 and len(east_after) == len(east_before) - 1
    new = [v for v in east_after.values() if v[4] != before.get(v[:3], v)[4] or v[:3] not in before]
    assert len(new) == 1 and new[0][3] == east_before[new[0][:3]][3] * Decimal("1.1")
