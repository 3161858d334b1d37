"""A paged OData answer read region by region when a page after the first fails: each region the pages read named
is asked for on its own, whole or not at all, and what was read and what failed is kept in the envelope."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from pipelines.errors import FetchError
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.fetch.split_pages import fetch_answer, narrowed
from pipelines.reading.pages import paged_answer
from pipelines.sources.file import Paging
from tests.support.localserver import LocalServer, Reply

QUERY = "$filter=serviceName%20eq%20'Virtual%20Machines'"
FIRST = f"/api/retail/prices?{QUERY}"
SECOND = f"/api/retail/prices?{QUERY}&$skip=2"
PAGING = Paging.model_validate(
    {"next_link": "NextPageLink", "max_pages": 10, "split": {"items": "Items", "by": "armRegionName"}}
)


def item(region: str, price: int) -> dict[str, object]:
    return {"armRegionName": region, "retailPrice": price}


def page(items: list[dict[str, object]], next_path: str | None = None) -> Reply:
    link = None if next_path is None else f"https://prices.azure.com:443{next_path}"
    body = {"Items": items, "NextPageLink": link, "Count": len(items)}
    return Reply(body=json.dumps(body).encode(), content_type="application/json")


def part_path(region: str) -> str:
    """The route a part's first page is asked for on: the first page's, its $filter narrowed to the region."""
    url = httpx.URL(narrowed("src", f"http://127.0.0.1{FIRST}", "armRegionName", region))
    return url.raw_path.decode()


FAILED = Reply(status=503, body=b"busy", content_type="text/plain")


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        srv.set(FIRST, page([item("eastus", 1), item("westus", 2)], SECOND))
        srv.set(SECOND, page([item("eastus", 3), item("northeurope", 4)]))
        yield srv


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher(FetchSettings(max_attempts=1, backoff_initial_s=0, backoff_max_s=0, read_timeout_s=2)) as f:
        yield f


def fetched(server: LocalServer, fetcher: Fetcher):
    return fetch_answer(fetcher, "src", server.url(FIRST), PAGING)


def test_an_answer_read_whole_is_not_split(server, fetcher):
    answer = paged_answer(fetched(server, fetcher).body, "src")
    assert answer.split is None and [len(d["Items"]) for d in answer.documents] == [2, 2]
    assert server.hits(part_path("eastus")) == 0


def test_a_failed_later_page_reads_each_region_it_named_on_its_own_and_names_the_one_that_failed(server, fetcher):
    server.set(SECOND, FAILED)
    eastus_second = part_path("eastus") + "&$skip=1"
    server.set(part_path("eastus"), page([item("eastus", 10)], eastus_second))
    server.set(eastus_second, page([item("eastus", 30)]))  # a part is paged too, and read whole
    server.set(part_path("westus"), FAILED)
    result = fetched(server, fetcher)
    answer = paged_answer(result.body, "src")
    assert answer.split is not None
    assert answer.split.by == "armRegionName" and answer.split.read == ("eastus",)
    assert answer.split.whole_answer_failed.startswith("page 2 of the answer: gave up after 1 attempts: HTTP 503")
    assert answer.split.failed["westus"].startswith("page 1 of the answer: gave up after 1 attempts: HTTP 503")
    assert [d["Items"] for d in answer.documents] == [[item("eastus", 10)], [item("eastus", 30)]]
    # northeurope was named only by the page that failed: never asked for. The answer keeps the source's URL, and
    # each part's first page the query that read it.
    assert server.hits(part_path("northeurope")) == 0
    assert result.url == server.url(FIRST)
    pages = json.loads(result.body)["pages"]
    assert [p["part"] for p in pages] == ["eastus", "eastus"]
    assert "armRegionName eq 'eastus'" in httpx.URL(pages[0]["reached_by"]).params["$filter"]


def test_a_failed_first_page_names_no_region_and_every_region_failing_fails_the_answer(server, fetcher):
    server.set(FIRST, FAILED)
    with pytest.raises(FetchError, match=r"^\[src\] fetch: page 1 of the answer: gave up"):
        fetched(server, fetcher)
    assert server.hits(part_path("eastus")) == 0

    server.set(FIRST, page([item("eastus", 1), item("westus", 2)], SECOND))
    server.set(SECOND, FAILED)
    server.set(part_path("eastus"), FAILED)
    server.set(part_path("westus"), FAILED)
    with pytest.raises(FetchError) as caught:
        fetched(server, fetcher)
    said = caught.value.message
    assert said.startswith("page 2 of the answer: gave up after 1 attempts: HTTP 503")
    assert "read armRegionName by armRegionName instead, every one of the 2 failed too (eastus: page 1" in said


def test_a_region_narrows_the_filter_with_odata_quoting_and_a_url_without_a_filter_cannot_split():
    url = httpx.URL(narrowed("src", f"https://prices.azure.com{FIRST}", "armRegionName", "o'hare"))
    assert url.params["$filter"] == "(serviceName eq 'Virtual Machines') and armRegionName eq 'o''hare'"
    with pytest.raises(FetchError, match=r"cannot be read part by part: its URL has no \$filter"):
        narrowed("src", "https://prices.azure.com/api/retail/prices", "armRegionName", "eastus")
