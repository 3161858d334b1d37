"""pipelines.fetch.http over real HTTP against LocalServer. Waits are recorded by a fake sleep, never slept."""

from __future__ import annotations

import gzip
import hashlib
import socket
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pydantic
import pytest

from pipelines.errors import FetchError
from pipelines.fetch.archive import open_body
from pipelines.fetch.http import Fetcher, FetchResult, FetchSettings
from tests.support.localserver import LocalServer, Reply

PAGE = b"<html><body><table><tr><td>trn1.2xlarge</td><td>$1.34</td></tr></table></body></html>"

# Small timeouts and backoffs so that even the failure paths finish in well under a second.
FAST = {
    "connect_timeout_s": 1.0,
    "read_timeout_s": 1.0,
    "max_attempts": 3,
    "backoff_initial_s": 0.01,
    "backoff_max_s": 0.05,
}


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        yield srv


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def make_fetcher(waits: list[float]) -> Iterator[Callable[..., Fetcher]]:
    fetchers: list[Fetcher] = []

    def make(**overrides: object) -> Fetcher:
        fetcher = Fetcher(FetchSettings(**{**FAST, **overrides}), sleep=waits.append)
        fetchers.append(fetcher)
        return fetcher

    yield make
    for fetcher in fetchers:
        fetcher.close()


def fetch_error(fetcher: Fetcher, url: str, **kwargs: object) -> FetchError:
    with pytest.raises(FetchError) as caught:
        fetcher.fetch("src", url, **kwargs)
    return caught.value


def test_success_returns_body_and_metadata(server, make_fetcher, waits):
    server.set("/page", Reply(body=PAGE))
    before = datetime.now(UTC)
    result = make_fetcher().fetch("aws_trn1", server.url("/page"))

    assert isinstance(result, FetchResult)
    assert result.source_id == "aws_trn1"
    assert result.status == 200
    assert result.body == PAGE
    assert result.sha256 == hashlib.sha256(PAGE).hexdigest()
    assert result.content_type == "text/html; charset=utf-8"
    assert result.url == result.final_url == server.url("/page")
    assert result.attempts == 1
    assert result.fetched_at.tzinfo is not None and result.fetched_at >= before
    assert result.elapsed_ms >= 0
    assert waits == []
    ((path, headers),) = server.requests
    assert path == "/page"
    assert headers["User-Agent"] == FetchSettings().user_agent
    assert "gzip" in headers["Accept-Encoding"]


def test_429_with_retry_after_waits_that_long(server, make_fetcher, waits):
    server.set("/page", Reply(status=429, headers={"Retry-After": "3"}), Reply(body=PAGE))
    result = make_fetcher().fetch("src", server.url("/page"))
    assert result.body == PAGE
    assert result.attempts == 2
    assert waits == [3.0]
    assert server.hits("/page") == 2


def test_retry_after_as_http_date(server, make_fetcher, waits):
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    server.set("/page", Reply(status=503, headers={"Retry-After": when}), Reply(body=PAGE))
    assert make_fetcher().fetch("src", server.url("/page")).attempts == 2
    (wait,) = waits
    assert 25 <= wait <= 30


def test_503_twice_then_success_backs_off(server, make_fetcher, waits):
    server.set("/page", Reply(status=503), Reply(status=503), Reply(body=PAGE))
    result = make_fetcher().fetch("src", server.url("/page"))
    assert result.body == PAGE
    assert result.attempts == 3
    assert len(waits) == 2 and all(0 < w <= FAST["backoff_max_s"] for w in waits)


def test_persistent_503_gives_up_after_max_attempts(server, make_fetcher, waits):
    server.set("/page", Reply(status=503))
    error = fetch_error(make_fetcher(max_attempts=4), server.url("/page"))
    assert "gave up after 4 attempts" in str(error) and "HTTP 503" in str(error)
    assert str(error).startswith("[src] fetch: ")
    assert error.status == 503 and error.retryable and error.cause == "http-5xx"
    assert server.hits("/page") == 4
    assert len(waits) == 3


def test_retry_after_above_cap_gives_up_at_once(server, make_fetcher, waits):
    server.set("/page", Reply(status=429, headers={"Retry-After": "600"}), Reply(body=PAGE))
    error = fetch_error(make_fetcher(max_retry_after_s=120), server.url("/page"))
    assert "Retry-After 600s" in str(error)
    assert error.status == 429 and error.cause == "http-429"
    assert server.hits("/page") == 1
    assert waits == []


def test_404_is_not_retried(server, make_fetcher, waits):
    error = fetch_error(make_fetcher(), server.url("/missing"))
    assert "HTTP 404" in str(error)
    assert error.status == 404 and not error.retryable and error.cause == "http-4xx"
    assert server.hits("/missing") == 1
    assert waits == []


def test_read_timeout_is_retried_then_fails(server, make_fetcher):
    server.set("/slow", Reply(body=PAGE, delay_s=0.6))
    error = fetch_error(make_fetcher(read_timeout_s=0.2, max_attempts=2), server.url("/slow"))
    assert "gave up after 2 attempts: ReadTimeout" in str(error)
    assert error.retryable and error.status is None and error.cause == "timeout"
    assert server.hits("/slow") == 2


def test_read_timeout_then_success(server, make_fetcher):
    server.set("/slow", Reply(delay_s=0.6), Reply(body=PAGE))
    result = make_fetcher(read_timeout_s=0.2).fetch("src", server.url("/slow"))
    assert result.body == PAGE and result.attempts == 2


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every (host, port) the fetcher tries to connect to: the real socket.create_connection, counted."""
    tried: list[tuple[str, int]] = []
    real = socket.create_connection

    def counted(address: tuple[str, int], *args: object, **kwargs: object) -> socket.socket:
        tried.append(address)
        return real(address, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "create_connection", counted)
    return tried


def closed_port() -> int:
    """A port that was free a moment ago: nothing listens there now, so a connect is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_host_that_does_not_resolve_fails_at_once(make_fetcher, waits, connects):
    # RFC 6761: names under .invalid never resolve, so no lookup can succeed and no request leaves the machine.
    error = fetch_error(make_fetcher(max_attempts=4), "https://prices.invalid/page")
    assert connects == [("prices.invalid", 443)]  # one attempt of the four allowed
    assert error.cause == "dns" and not error.retryable
    assert "host prices.invalid does not resolve (no network?)" in str(error)
    assert str(error).startswith("[src] fetch: ")
    assert "gave up" not in str(error)  # one attempt, not a retry loop that ran out
    assert error.status is None
    assert waits == []  # no backoff: the sleep callback was never called


def test_a_host_that_did_not_resolve_is_not_looked_up_again_in_the_same_run(make_fetcher, connects):
    """Every later request to the host fails at once with the first lookup's answer; another Fetcher (the next
    run) looks it up again."""
    fetcher = make_fetcher()
    first = fetch_error(fetcher, "https://prices.invalid/a")
    second = fetch_error(fetcher, "https://prices.invalid/b")
    assert connects == [("prices.invalid", 443)]  # one lookup for both
    assert second.cause == "dns" and not second.retryable and second.source_id == "src"
    assert second.message == f"{first.message} (an earlier request of this run)"
    fetch_error(make_fetcher(), "https://prices.invalid/c")
    assert connects == [("prices.invalid", 443)] * 2


def test_connection_refused_fails_at_once(make_fetcher, waits, connects):
    port = closed_port()
    error = fetch_error(make_fetcher(max_attempts=4), f"http://127.0.0.1:{port}/page")
    assert connects == [("127.0.0.1", port)]
    assert error.cause == "refused" and not error.retryable
    assert f"connection to 127.0.0.1:{port} refused" in str(error)
    assert "gave up" not in str(error)
    assert waits == []


def test_unresolvable_redirect_target_fails_at_once(server, make_fetcher, waits):
    # A hop to an allowed host that does not resolve is as final as a first request to it.
    server.set("/old", Reply(status=302, headers={"Location": "http://mirror.invalid/new"}))
    error = fetch_error(make_fetcher(), server.url("/old"), allowed_hosts=frozenset({"127.0.0.1", "mirror.invalid"}))
    assert error.cause == "dns" and "host mirror.invalid does not resolve" in str(error)
    assert server.hits("/old") == 1
    assert waits == []


def test_truncated_body_is_a_retried_transport_error(server, make_fetcher):
    server.set("/page", Reply(body=PAGE, truncate_to=20))
    error = fetch_error(make_fetcher(max_attempts=2), server.url("/page"))
    assert "RemoteProtocolError" in str(error) and error.retryable and error.cause == "broken"
    assert server.hits("/page") == 2


def test_truncated_body_then_full_body(server, make_fetcher):
    server.set("/page", Reply(body=PAGE, truncate_to=20), Reply(body=PAGE))
    result = make_fetcher().fetch("src", server.url("/page"))
    assert result.body == PAGE and result.attempts == 2


def test_body_over_max_bytes_is_refused(server, make_fetcher):
    server.set("/big", Reply(body=b"x" * 5000))
    error = fetch_error(make_fetcher(max_bytes=1000), server.url("/big"))
    assert "body exceeds 1000 bytes" in str(error) and not error.retryable and error.cause == "body"
    assert server.hits("/big") == 1


def test_gzip_body_is_inflated(server, make_fetcher):
    server.set("/page", Reply(body=PAGE, gzip=True))
    result = make_fetcher().fetch("src", server.url("/page"))
    assert result.body == PAGE
    assert result.sha256 == hashlib.sha256(PAGE).hexdigest()


def test_gzip_bomb_is_stopped_at_max_bytes(server, make_fetcher):
    inflated = b"0" * 200_000
    assert len(gzip.compress(inflated)) < 1000  # so the Content-Length check alone cannot catch it
    server.set("/bomb", Reply(body=inflated, gzip=True))
    error = fetch_error(make_fetcher(max_bytes=1000), server.url("/bomb"))
    assert "body exceeds 1000 bytes" in str(error)


def test_slow_chunks_within_read_timeout_arrive_whole(server, make_fetcher):
    body = bytes(range(256)) * 200  # several chunks
    server.set("/page", Reply(body=body, chunks_delay_s=0.02))
    assert make_fetcher().fetch("src", server.url("/page")).body == body


def test_same_host_redirect_is_followed(server, make_fetcher):
    server.set("/old", Reply(status=301, headers={"Location": "/new"}))
    server.set("/new", Reply(body=PAGE))
    result = make_fetcher().fetch("src", server.url("/old"))
    assert result.body == PAGE
    assert result.url == server.url("/old")
    assert result.final_url == server.url("/new")
    assert result.attempts == 1


def test_redirect_to_other_host_is_refused(server, make_fetcher):
    server.set("/old", Reply(status=302, headers={"Location": f"http://localhost:{server.port}/new"}))
    server.set("/new", Reply(body=PAGE))
    error = fetch_error(make_fetcher(), server.url("/old"))
    assert "redirect to other host localhost refused" in str(error) and not error.retryable
    assert server.hits("/new") == 0


def test_redirect_to_allowed_host_is_followed(server, make_fetcher):
    server.set("/old", Reply(status=302, headers={"Location": f"http://localhost:{server.port}/new"}))
    server.set("/new", Reply(body=PAGE))
    result = make_fetcher().fetch("src", server.url("/old"), allowed_hosts=frozenset({"127.0.0.1", "localhost"}))
    assert result.final_url == f"http://localhost:{server.port}/new"


def test_redirect_loop_stops_after_five(server, make_fetcher):
    server.set("/loop", Reply(status=302, headers={"Location": "/loop"}))
    error = fetch_error(make_fetcher(), server.url("/loop"))
    assert "more than 5 redirects" in str(error)
    assert server.hits("/loop") == 6


def test_host_not_in_allowed_hosts_is_refused_before_any_request(server, make_fetcher):
    server.set("/page", Reply(body=PAGE))
    error = fetch_error(make_fetcher(), server.url("/page"), allowed_hosts=frozenset({"aws.amazon.com"}))
    assert "127.0.0.1" in str(error) and "aws.amazon.com" in str(error)
    assert server.hits("/page") == 0 and server.requests == []


def test_per_host_limit_caps_concurrent_requests(server, make_fetcher):
    server.set("/page", Reply(body=PAGE, delay_s=0.05))
    fetcher = make_fetcher(per_host_limit=1)
    results: list[FetchResult] = []

    def fetch_one() -> None:
        results.append(fetcher.fetch("src", server.url("/page")))

    threads = [threading.Thread(target=fetch_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=5)
    assert len(results) == 4
    assert server.max_in_flight == 1


def test_settings_are_frozen():
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        FetchSettings().max_attempts = 9  # type: ignore[misc]


def test_post_sends_the_body_and_content_type():
    with LocalServer() as server:
        server.set("/graphql", Reply(body=b'{"data": {}}', content_type="application/json"))
        with Fetcher(FetchSettings(max_attempts=1)) as fetcher:
            result = fetcher.fetch(
                "gpu_runpod",
                server.url("/graphql"),
                method="POST",
                body=b'{"query": "{ gpuTypes { id } }"}',
                content_type="application/json",
            )
        assert result.body == b'{"data": {}}'
        path, headers = server.requests[-1]
        assert path == "/graphql" and headers.get("Content-Type") == "application/json"
        assert server.posted == [("/graphql", b'{"query": "{ gpuTypes { id } }"}')]


def test_a_body_streamed_to_a_file_is_hashed_as_it_arrives_even_after_a_retry(server, make_fetcher, tmp_path):
    body = b"x" * 300_000 + b"end\n"
    server.set("/big.csv", Reply(body=body, truncate_to=150_000), Reply(body=body, content_type="text/csv"))
    spool = tmp_path / "big.csv.zst"
    result = make_fetcher().fetch("src", server.url("/big.csv"), spool_to=spool)
    # The first, cut-short attempt wrote into the same file: the hash is of the body that was kept, in full.
    with open_body(spool) as spooled:
        assert result.body == b"" and result.body_file == spool and spooled.read() == body
    assert result.sha256 == hashlib.sha256(body).hexdigest() and result.size == len(body)
    assert spool.read_bytes()[:4] == b"\x28\xb5\x2f\xfd" and spool.stat().st_size < len(body) / 100  # zstd
