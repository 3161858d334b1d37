"""A source whose answer is paged (Azure's Retail Prices API) through a whole refresh: every page lands as one
version; a page cut off halfway fails that source alone, naming the page, with its last good version kept; the same
pages again are an unchanged fetch."""

from __future__ import annotations

from pathlib import Path

import duckdb

from pipelines.fetch.offline import pointed_at
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
