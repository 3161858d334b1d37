"""The transport part of the fault matrix: what the network can do to one source, over real HTTP to 127.0.0.1.

Each test lands a good version of every source, breaks one source's answer, refreshes, and lets `run_fault`
check every promise (outcome, error naming source and cause, no rows from the bad fetch, last good version
intact, other sources intact, fetch log and quarantine). On top, each test counts the attempts this refresh
made (server hits) and the backoff sleeps it took, so "retried" and "not retried" are both checked.
The 429-then-success and persistent-503 scenarios live in test_transport_examples.py.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import dagster as dg
import pytest

from assets.source_steps import build_source_step
from pipelines.errors import FetchError
from pipelines.orchestration.resources import FetcherResource, SourcesResource, WarehouseResource
from pipelines.sources.file import SourceSpec
from tests.reliability.harness import FAST, Matrix, run_fault, sample_reply, sample_text
from tests.reliability.promises import FAULT, REFUSED_FAULT, UNWANTED_REQUESTS
from tests.support.localserver import CHUNK_SIZE, Reply

CAP = FAST.max_bytes  # 512 KiB


class Fault:
    """Serve `replies` to one source; remember the hit count first so the test can count this refresh's tries."""

    def __init__(self, source_id: str, *replies: Reply):
        self.source_id = source_id
        self.replies = replies
        self.hits_before = 0

    def __call__(self, m: Matrix) -> None:
        self.hits_before = m.server.hits(m.path(self.source_id))
        m.sleeps.clear()  # the good refresh slept nothing; from here on, only the fault's backoffs count
        m.serve(self.source_id, *self.replies)

    def hits(self, m: Matrix) -> int:
        return m.server.hits(m.path(self.source_id)) - self.hits_before


def padded(source_id: str, m: Matrix, size: int) -> bytes:
    """The source's sample page, still valid HTML, padded with a comment to `size` bytes."""
    page = sample_text(m.source(source_id)).encode()
    return page + b"<!--" + b" " * (size - len(page) - 7) + b"-->"


def point_at(m: Matrix, source_id: str, url: str) -> None:
    """Point a source at another URL (its allowed host is the URL's own, so any host passes that check)."""
    i = next(i for i, s in enumerate(m.sources) if s.id == source_id)
    m.sources[i] = SourceSpec.model_validate({**m.sources[i].model_dump(), "url": url})


# -- transient server errors, then success ------------------------------------------------------------------


@pytest.mark.expect("unchanged")
@pytest.mark.promises(*FAULT)
@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_then_success(matrix, scenario, status):
    fault = Fault(
        "aws_trn1",
        Reply(status=status, body=b"oops", content_type="text/plain"),
        sample_reply(matrix.source("aws_trn1")),
    )
    run_fault(matrix, scenario, source_id="aws_trn1", fault=fault, expect_status="unchanged")
    assert fault.hits(matrix) == 2  # one failure, one retry that succeeded
    assert len(matrix.sleeps) == 1  # one backoff, through the injected sleep
    assert matrix.query(
        "SELECT attempts FROM fetch_log WHERE source_id = 'aws_trn1' ORDER BY fetch_id DESC LIMIT 1"
    ) == [(2,)]


# -- time: connect and read timeouts ----------------------------------------------------------------------


@contextmanager
def hanging_port() -> Iterator[tuple[int, bool]]:
    """A listening port nobody accepts on, with its accept queue filled so a new connect hangs in SYN_SENT.

    Yields (port, connects_hang). If this kernel still completes connects after 16 clients, connects_hang is
    False: the port then completes the handshake and never answers (a read timeout, not a connect timeout).
    """
    listener = socket.socket()
    clients: list[socket.socket] = []
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        connects_hang = False
        for _ in range(16):
            client = socket.socket()
            client.settimeout(0.2)
            try:
                client.connect(("127.0.0.1", port))
            except TimeoutError:
                client.close()
                connects_hang = True
                break
            clients.append(client)  # completed into the accept queue; kept open so the queue stays full
        yield port, connects_hang
    finally:
        for client in clients:
            with suppress(OSError):
                client.close()
        listener.close()


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT)
def test_connect_timeout(matrix, scenario):
    with hanging_port() as (port, connects_hang):
        cause = "ConnectTimeout" if connects_hang else "ReadTimeout"
        if not connects_hang:
            scenario.name = "no_response_read_timeout_at_connect"
            scenario.notes.append("kernel completed connects despite a full backlog; fell back to no response")

        def fault(m):
            m.sleeps.clear()
            point_at(m, "aws_trn1", f"http://127.0.0.1:{port}/aws/trn1.html")

        run_fault(
            matrix,
            scenario,
            source_id="aws_trn1",
            fault=fault,
            expect_status="fetch_failed",
            expect_in_error=("gave up after 3 attempts", cause),
        )
    assert len(matrix.sleeps) == 2  # retried, with a backoff before each retry
    assert matrix.last_fetch("aws_trn1")["status"] is None  # no response ever arrived


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT)
def test_read_timeout_on_slow_body(matrix, scenario):
    # Headers and the first 16 KiB arrive at once; the next chunk comes after twice the read timeout.
    body = padded("aws_trn1", matrix, 3 * CHUNK_SIZE)
    fault = Fault("aws_trn1", Reply(body=body, chunks_delay_s=2 * FAST.read_timeout_s))
    run_fault(
        matrix,
        scenario,
        source_id="aws_trn1",
        fault=fault,
        expect_status="fetch_failed",
        expect_in_error=("gave up after 3 attempts", "ReadTimeout"),
    )
    assert fault.hits(matrix) == FAST.max_attempts
    assert len(matrix.sleeps) == FAST.max_attempts - 1


# -- broken bodies ------------------------------------------------------------------------------------------


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT)
def test_connection_reset_mid_body(matrix, scenario):
    fault = Fault("aws_trn1", Reply(body=sample_reply(matrix.source("aws_trn1")).body, reset_after=1000))
    run_fault(
        matrix,
        scenario,
        source_id="aws_trn1",
        fault=fault,
        expect_status="fetch_failed",
        expect_in_error=("gave up after 3 attempts", "reset"),
    )
    assert fault.hits(matrix) == FAST.max_attempts


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT)
def test_truncated_body(matrix, scenario):
    body = sample_reply(matrix.source("aws_trn1")).body
    fault = Fault("aws_trn1", Reply(body=body, truncate_to=len(body) // 2))
    run_fault(
        matrix,
        scenario,
        source_id="aws_trn1",
        fault=fault,
        expect_status="fetch_failed",
        expect_in_error=(
            "gave up after 3 attempts",
            "RemoteProtocolError",
            f"received {len(body) // 2} bytes, expected {len(body)}",
        ),
    )
    assert fault.hits(matrix) == FAST.max_attempts


# -- size caps ----------------------------------------------------------------------------------------------


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT)
def test_body_over_size_cap(matrix, scenario):
    body = padded("aws_trn1", matrix, 600_000)
    fault = Fault("aws_trn1", Reply(body=body))
    run_fault(
        matrix,
        scenario,
        source_id="aws_trn1",
        fault=fault,
        expect_status="fetch_failed",
        expect_in_error=(f"body exceeds {CAP} bytes", f"Content-Length {len(body)}"),
    )
    assert fault.hits(matrix) == 1  # a size cap is not transient: no retry
    assert matrix.sleeps == []


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT)
def test_gzip_body_inflating_past_cap(matrix, scenario):
    body = padded("aws_trn1", matrix, 4_000_000)  # ~4 KB on the wire, 4 MB inflated
    fault = Fault("aws_trn1", Reply(body=body, gzip=True))
    outcomes = run_fault(
        matrix,
        scenario,
        source_id="aws_trn1",
        fault=fault,
        expect_status="fetch_failed",
        expect_in_error=(f"body exceeds {CAP} bytes",),
    )
    # The small Content-Length passed; the cap caught it while inflating, not from the header.
    assert "Content-Length" not in str(outcomes["aws_trn1"].error)
    assert fault.hits(matrix) == 1
    assert matrix.sleeps == []


# -- redirects ----------------------------------------------------------------------------------------------


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT)
def test_redirect_to_other_host_refused(matrix, scenario):
    # 'localhost' reaches the same server, so following the redirect would show as a second hit.
    target = f"http://localhost:{matrix.server.port}{matrix.path('aws_trn1')}"
    fault = Fault("aws_trn1", Reply(status=302, headers={"Location": target}))
    run_fault(
        matrix,
        scenario,
        source_id="aws_trn1",
        fault=fault,
        expect_status="fetch_failed",
        expect_in_error=("redirect to other host localhost refused",),
    )
    assert fault.hits(matrix) == 1
    assert matrix.last_fetch("aws_trn1")["status"] == 302


@pytest.mark.expect("unchanged")
@pytest.mark.promises(*FAULT)
def test_same_host_redirect_followed(matrix, scenario):
    moved = "/moved/trn1.html"
    matrix.server.set(moved, sample_reply(matrix.source("aws_trn1")))
    fault = Fault("aws_trn1", Reply(status=302, headers={"Location": matrix.server.url(moved)}))
    run_fault(matrix, scenario, source_id="aws_trn1", fault=fault, expect_status="unchanged")
    assert fault.hits(matrix) == 1 and matrix.server.hits(moved) == 1
    final_url = matrix.query(
        "SELECT final_url FROM fetch_log WHERE source_id = 'aws_trn1' ORDER BY fetch_id DESC LIMIT 1"
    )[0][0]
    assert final_url == matrix.server.url(moved)


# -- wrong content type: refused before parsing, kept in quarantine -----------------------------------------


@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_html_source_answered_with_pdf(matrix, scenario):
    body = b"%PDF-1.7\n" + sample_reply(matrix.source("aws_trn1")).body
    fault = Fault("aws_trn1", Reply(body=body, content_type="application/pdf"))
    run_fault(
        matrix,
        scenario,
        source_id="aws_trn1",
        fault=fault,
        expect_status="quarantined",
        expect_in_error=("content type 'application/pdf'",),
    )
    [(stage, reasons, kept)] = matrix.quarantined(matrix.last_fetch("aws_trn1")["fetch_id"])
    assert stage == "parse" and "application/pdf" in reasons[0]
    assert kept == len(body)  # the whole body is kept for a human to look at


@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_json_source_answered_with_html_error_page(matrix, scenario):
    body = b"<html><body><h1>Something went wrong</h1><p>Please try again later.</p></body></html>"
    fault = Fault("gpu_runpod", Reply(body=body, content_type="text/html; charset=utf-8"))
    run_fault(
        matrix,
        scenario,
        source_id="gpu_runpod",
        fault=fault,
        expect_status="quarantined",
        expect_in_error=("content type 'text/html'",),
    )
    [(stage, reasons, kept)] = matrix.quarantined(matrix.last_fetch("gpu_runpod")["fetch_id"])
    assert stage == "parse" and "text/html" in reasons[0]
    assert kept == len(body)
    assert fault.hits(matrix) == 1


# -- final answers: not retried -----------------------------------------------------------------------------


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT)
def test_404_not_retried(matrix, scenario):
    fault = Fault("aws_capacity_blocks", Reply(status=404, body=b"gone", content_type="text/plain"))
    run_fault(
        matrix,
        scenario,
        source_id="aws_capacity_blocks",
        fault=fault,
        expect_status="fetch_failed",
        expect_in_error=("HTTP 404",),
    )
    assert fault.hits(matrix) == 1
    assert matrix.sleeps == []
    assert matrix.last_fetch("aws_capacity_blocks")["status"] == 404


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT)
def test_retry_after_over_the_cap_fails_at_once(matrix, scenario):
    fault = Fault("gpu_hyperstack", Reply(status=503, headers={"Retry-After": "600"}))
    run_fault(
        matrix,
        scenario,
        source_id="gpu_hyperstack",
        fault=fault,
        expect_status="fetch_failed",
        expect_in_error=("Retry-After 600s", f"over the {FAST.max_retry_after_s:g}s limit", "not retrying"),
    )
    assert fault.hits(matrix) == 1
    assert matrix.sleeps == []  # did not wait 600 s, nor any backoff


# -- no network: a host that does not resolve, a connection refused -- one attempt, no backoff, no Dagster retry


def closed_port() -> int:
    """A port that was free a moment ago: nothing listens there now, so a connect is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def unreachable_fault(matrix: Matrix, scenario, url: str, cause: str, says: str) -> None:
    """Point aws_trn1 at `url`; it must fail by `cause` at the first attempt while every other source lands."""

    def fault(m: Matrix) -> None:
        m.sleeps.clear()
        point_at(m, "aws_trn1", url)

    outcomes = run_fault(
        matrix, scenario, source_id="aws_trn1", fault=fault, expect_status="fetch_failed", expect_in_error=(says,)
    )
    # Each backoff precedes a retry that could not have gone otherwise: a request that should not have been sent.
    scenario.measure(UNWANTED_REQUESTS, len(matrix.sleeps))
    error = outcomes["aws_trn1"].error
    assert isinstance(error, FetchError) and error.cause == cause and not error.retryable, repr(error)
    assert "gave up" not in str(error)  # failed at the first attempt, not after the retries ran out
    assert matrix.sleeps == []
    assert matrix.last_fetch("aws_trn1")["status"] is None


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT, UNWANTED_REQUESTS)
def test_host_does_not_resolve(matrix, scenario):
    # RFC 6761: a name under .invalid never resolves, so nothing leaves the machine.
    url = "http://prices.invalid/aws/trn1.html"
    unreachable_fault(matrix, scenario, url, "dns", "host prices.invalid does not resolve (no network?)")


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT, UNWANTED_REQUESTS)
def test_connection_refused(matrix, scenario):
    port = closed_port()
    url = f"http://127.0.0.1:{port}/aws/trn1.html"
    unreachable_fault(matrix, scenario, url, "refused", f"connection to 127.0.0.1:{port} refused")


def dagster_attempts(matrix: Matrix, tmp_path, source_id: str, base_url: str) -> int:
    """Materialise one source's step under a retry policy of 2 retries; how many times Dagster ran it."""
    asset = build_source_step("sources", [(matrix.source(source_id), [])], dg.RetryPolicy(max_retries=2, delay=0))
    result = dg.materialize(
        [asset],
        resources={
            "warehouse": WarehouseResource(db_path=str(tmp_path / "dagster.duckdb")),
            "fetcher": FetcherResource(max_attempts=1, connect_timeout_s=0.5, read_timeout_s=2),
            "sources": SourcesResource(offline_base_url=base_url),
        },
        raise_on_error=False,
    )
    assert not result.success
    retries = sum(event.event_type == dg.DagsterEventType.STEP_UP_FOR_RETRY for event in result.all_events)
    return 1 + retries


@pytest.mark.expect("dns: 1 run, 503: 3")
@pytest.mark.promises(UNWANTED_REQUESTS)
def test_dagster_retries_transient_failures_only(matrix, scenario, tmp_path):
    # The asset's source spec comes from the sources file, pointed at base_url the way --offline does it.
    dns_runs = dagster_attempts(matrix, tmp_path, "fx_ecb", "http://prices.invalid")
    matrix.serve("fx_ecb", Reply(status=503, body=b"busy", content_type="text/plain"))
    busy_runs = dagster_attempts(matrix, tmp_path, "fx_ecb", matrix.server.base_url)
    scenario.observed = f"dns: {dns_runs} run(s), 503: {busy_runs} run(s)"
    scenario.measure(UNWANTED_REQUESTS, dns_runs - 1)
    assert dns_runs == 1, scenario.observed
    assert busy_runs == 3, scenario.observed  # the policy still retries what may pass a minute later
    assert matrix.server.hits(matrix.path("fx_ecb")) == 3
