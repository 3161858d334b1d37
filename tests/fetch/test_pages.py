"""pipelines.fetch.pages over real HTTP: every page of an answer paged by a link, kept as one body, or none at all,
with the failed page named; and pipelines.reading.pages reading the pages back."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

import pytest

from pipelines.errors import FetchError, ParseError
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.fetch.pages import NextPage, fetch_pages
from pipelines.reading.pages import page_documents
from tests.support.localserver import LocalServer, Reply

# As Azure's links read: absolute, on the API's own host, the same path with `$skip` further on.
LINK = "https://prices.azure.com:443/api/retail/prices?$filter=x%20eq%20'1'&$skip={skip}"
SECOND = "/api/retail/prices?$filter=x%20eq%20'1'&$skip=2"
THIRD = "/api/retail/prices?$filter=x%20eq%20'1'&$skip=4"


def page(items: list[int], skip: int | None) -> Reply:
    body = {"Items": items, "NextPageLink": None if skip is None else LINK.format(skip=skip), "Count": len(items)}
    return Reply(body=json.dumps(body).encode(), content_type="application/json")


PAGES = {"/first": page([1, 2], 2), SECOND: page([3, 4], 4), THIRD: page([5], None)}


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        for path, reply in PAGES.items():
            srv.set(path, reply)
        yield srv


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher(FetchSettings(max_attempts=2, backoff_initial_s=0, backoff_max_s=0, read_timeout_s=2)) as f:
        yield f


def fetched(server: LocalServer, fetcher: Fetcher, max_pages: int = 10):
    return fetch_pages(fetcher, "src", server.url("/first"), NextPage("NextPageLink"), max_pages)


def test_every_page_is_fetched_on_the_first_pages_host_and_kept_whole(server, fetcher):
    result = fetched(server, fetcher)
    # The links name prices.azure.com; only their path and query were asked of the host the first page came from.
    assert [path for path, _ in server.requests] == ["/first", SECOND, THIRD]
    documents = page_documents(result.body, "src")
    assert [d["Items"] for d in documents] == [[1, 2], [3, 4], [5]]
    envelope = json.loads(result.body)
    assert [p["reached_by"] for p in envelope["pages"]] == [None, LINK.format(skip=2), LINK.format(skip=4)]
    for kept, reply in zip(envelope["pages"], PAGES.values(), strict=True):
        assert kept["sha256"] == hashlib.sha256(reply.body).hexdigest()
    assert result.sha256 == hashlib.sha256(result.body).hexdigest()
    assert result.url == server.url("/first") and result.attempts == 3
    # Nothing in the body varies between runs but the pages: the same answer has the same hash.
    assert fetched(server, fetcher).sha256 == result.sha256


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (
            Reply(
                body=b'{"Items": [3, 4], "NextPageLink": "https://prices.azure.com/api', content_type="application/json"
            ),
            "it is not JSON",
        ),
        (Reply(body=b"[3, 4]", content_type="application/json"), "it is not a JSON object but list"),
        (
            Reply(body=b'{"Items": [], "NextPageLink": 7}', content_type="application/json"),
            "its NextPageLink is not a link",
        ),
    ],
)
def test_a_page_that_is_not_one_fails_the_whole_answer_naming_it(server, fetcher, reply, said):
    server.set(SECOND, reply)
    with pytest.raises(FetchError) as caught:
        fetched(server, fetcher)
    assert caught.value.cause == "paging" and caught.value.source_id == "src"
    assert f"page 2 of the answer cannot be read as a page, so no page of it lands: {said}" in caught.value.message
    assert server.hits(THIRD) == 0


def test_a_page_the_server_fails_fails_the_answer_after_its_retries(server, fetcher):
    server.set(SECOND, Reply(status=503, body=b"busy", content_type="text/plain"))
    with pytest.raises(FetchError) as caught:
        fetched(server, fetcher)
    assert caught.value.message.startswith("page 2 of the answer: gave up after 2 attempts: HTTP 503")
    assert caught.value.status == 503 and caught.value.retryable
    assert server.hits(SECOND) == 2 and server.hits(THIRD) == 0


def test_a_link_back_to_a_page_already_read_and_too_many_pages_are_refused(server, fetcher):
    server.set(THIRD, page([5], 2))  # the third page links the second again
    with pytest.raises(FetchError, match=r"page 3 .*leads back to a page already read"):
        fetched(server, fetcher)
    with pytest.raises(FetchError, match=r"page 2 .*names a page past the limit of 2 pages"):
        fetched(server, fetcher, max_pages=2)


def test_a_changed_page_in_a_kept_answer_is_refused_and_a_single_page_reads_as_one(server, fetcher):
    body = json.loads(fetched(server, fetcher).body)
    body["pages"][1]["text"] = body["pages"][1]["text"].replace("3", "8")
    with pytest.raises(ParseError, match=r"page 2 of the paged answer does not hash to the SHA-256 it arrived with"):
        page_documents(json.dumps(body).encode(), "src")
    assert page_documents(b'{"Items": [9], "NextPageLink": null}', "src") == [{"Items": [9], "NextPageLink": None}]


def test_a_token_paged_answer_sends_each_token_back_with_the_first_requests_own_parameters(server, fetcher):
    """As Google's Cloud Billing Catalog pages: `nextPageToken`, sent back as `pageToken`; an empty one ends it."""

    def catalog(skus: list[str], token: str) -> Reply:
        return Reply(body=json.dumps({"skus": skus, "nextPageToken": token}).encode(), content_type="application/json")

    server.set("/v1/skus?currencyCode=USD", catalog(["a", "b"], "t1"))
    server.set("/v1/skus?currencyCode=USD&pageToken=t1", catalog(["c"], "t2"))
    server.set("/v1/skus?currencyCode=USD&pageToken=t2", catalog(["d"], ""))
    follow = NextPage("nextPageToken", token_param="pageToken")
    result = fetch_pages(fetcher, "src", server.url("/v1/skus?currencyCode=USD"), follow, 10)
    assert [d["skus"] for d in page_documents(result.body, "src")] == [["a", "b"], ["c"], ["d"]]
    assert [p["reached_by"] for p in json.loads(result.body)["pages"]] == [None, "t1", "t2"]
    server.set("/v1/skus?currencyCode=USD&pageToken=t2", catalog(["d"], "t1"))  # back to the second page
    with pytest.raises(FetchError, match=r"page 3 .*its nextPageToken leads back to a page already read: t1"):
        fetch_pages(fetcher, "src", server.url("/v1/skus?currencyCode=USD"), follow, 10)
