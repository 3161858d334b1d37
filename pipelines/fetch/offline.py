"""`--offline`: serve the bundled samples over real HTTP on 127.0.0.1 and point every source at them.

The demo and the tests therefore run the same fetch path as production (httpx, retries, size cap,
archive), only the bytes come from pipelines/samples/.
"""

from __future__ import annotations

import functools
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pipelines.sources.file import SourceSpec
from pipelines.sources.locations import SAMPLES_DIR

# The EC2 indexes name the version index, each version's region index and each region's offer file by AWS's own
# paths; the samples answer there. A version's own regional sample wins over the current one (which is the
# current version's file).
OFFER_FILE = re.compile(r"^/offers/v1\.0/aws/AmazonEC2/(?P<stamp>\d{14})/(?P<region>[a-z0-9-]+)/index\.csv$")
VERSION_REGION_INDEX = re.compile(r"^/offers/v1\.0/aws/AmazonEC2/(?P<stamp>\d{14})/region_index\.json$")
VERSION_INDEX = "/offers/v1.0/aws/AmazonEC2/index.json"
RATE_FILE = re.compile(r"^/savingsPlan/v1\.0/aws/AWSComputeSavingsPlan/\d{14}/(?P<region>[a-z0-9-]+)/index\.csv$")
RATE_SAMPLE = "/aws/savingsplan/{region}.csv"
SAGEMAKER_FILE = re.compile(r"^/offers/v1\.0/aws/AmazonSageMaker/\d{14}/(?P<region>[a-z0-9-]+)/index\.csv$")
SAGEMAKER_SAMPLE = "/aws/sagemaker/{region}.csv"
OFFER_SAMPLE = "/aws/pricelist/{region}.csv"
VERSIONS_SAMPLE = "/aws/pricelist/versions"
# Azure's Retail Prices API pages its answer: each page links the next at the same path, `$skip` further on.
AZURE_PRICES = "/api/retail/prices"
AZURE_PAGE_SAMPLE = "/gpu/azure/retail_prices_skip_{skip}.json"
# An API that pages by a token asks the first page's path again with the token: the sample beside it answers.
TOKEN_PAGE_SAMPLE = "{stem}_page_{token}.json"
TOKEN_PARAMS = ("pageToken",)


def sample_for(path: str, root: Path = SAMPLES_DIR, query: str = "") -> str:
    """The sample path (under the samples folder) that answers an AWS price-list path (EC2 offers and their versions,
    Savings Plans rates, SageMaker offers), a later page of Azure's prices (by its `$skip`), or a later page of a sample
    paged by token (`<sample>_page_<token>.json`); any other path is kept."""
    params = dict(parse_qsl(query))
    if path == AZURE_PRICES:
        skip = params.get("$skip", "0")
        return AZURE_PAGE_SAMPLE.format(skip=int(skip) if skip.isdigit() else skip)
    token = next((params[name] for name in TOKEN_PARAMS if params.get(name)), None)
    if token is not None and path.endswith(".json") and re.fullmatch(r"[\w-]+", token):
        return TOKEN_PAGE_SAMPLE.format(stem=path.removesuffix(".json"), token=token)
    if path == VERSION_INDEX:
        return f"{VERSIONS_SAMPLE}/index.json"
    if version := VERSION_REGION_INDEX.match(path):
        return f"{VERSIONS_SAMPLE}/{version['stamp']}/region_index.json"
    if offer := OFFER_FILE.match(path):
        past = f"{VERSIONS_SAMPLE}/{offer['stamp']}/{offer['region']}.csv"
        return past if (root / past.lstrip("/")).is_file() else OFFER_SAMPLE.format(region=offer["region"])
    if rates := RATE_FILE.match(path):
        return RATE_SAMPLE.format(region=rates["region"])
    if sagemaker := SAGEMAKER_FILE.match(path):
        return SAGEMAKER_SAMPLE.format(region=sagemaker["region"])
    return path


class SampleRequestHandler(SimpleHTTPRequestHandler):
    """Answers each path with the sample sample_for names, quietly (the soak subclasses it to add faults)."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def translate_path(self, path: str) -> str:
        parts = urlsplit(path)
        return super().translate_path(sample_for(parts.path, Path(self.directory), parts.query))

    def copyfile(self, source: Any, outputfile: Any) -> None:
        # The kernel copies the file to the socket (sendfile): serving a 420 MB offer file costs this process
        # almost no CPU, which on two cores a refresh in the next process would otherwise share.
        self.wfile.flush()
        self.connection.sendfile(source)

    def do_POST(self) -> None:  # APIs such as RunPod's GraphQL are POSTed to: answer with the sample
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.do_GET()


class _SampleServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that goes away mid-answer (a stopped refresh closing its connections) is no fault of the server's:
        # the answer is simply not wanted any more, so nothing is printed. Anything else is reported as usual.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def sample_server(
    root: Path = SAMPLES_DIR, port: int = 0, handler: type[SampleRequestHandler] = SampleRequestHandler
) -> ThreadingHTTPServer:
    """A server answering as the sources' hosts do (AWS's price-list paths, POSTed APIs) from a folder of samples,
    on 127.0.0.1:port (0: any free one; read it from server_address). Not started: the caller serves it."""
    return _SampleServer(("127.0.0.1", port), functools.partial(handler, directory=str(root)))


@contextmanager
def serve_directory(root: Path = SAMPLES_DIR) -> Iterator[str]:
    """Serve a folder on 127.0.0.1 (a free port) for the duration of the block; yields the base URL."""
    server = sample_server(root)
    # A short poll: shutdown() waits for the loop's next look, which at the default 0.5 s ended every offline run late.
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="ratecard-samples", daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def shown_source(url: str) -> str:
    """A source URL as a page shows it: an offline refresh's URL (127.0.0.1 on a port that is gone once the run ends)
    names the bundled sample it served instead, `pipelines/samples/aws/trn1.html (sample)`; any other URL is kept."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or parts.hostname not in ("127.0.0.1", "localhost"):
        return url
    return f"pipelines/samples/{sample_for(parts.path, query=parts.query).lstrip('/')} (sample)"


# An offline URL in a sentence: up to whitespace or punctuation, a full stop after it not part of it.
OFFLINE_URL = re.compile(r"https?://(?:127\.0\.0\.1|localhost):\d+/[^\s,;)]*[^\s,;).]")


def samples_named(text: str) -> str:
    """`text` with every offline refresh's URL in it shown as shown_source shows it (a sentence citing its pages)."""
    return OFFLINE_URL.sub(lambda match: shown_source(match.group(0)), text)


def pointed_at(sources: list[SourceSpec], base_url: str) -> list[SourceSpec]:
    """The same sources, each URL replaced by its bundled sample's URL under base_url; the samples need no credential,
    so a keyed source asks for none."""
    return [
        SourceSpec.model_validate(
            {**s.model_dump(), "url": f"{base_url.rstrip('/')}/{s.sample}", "headers_from_env": {}}
        )
        for s in sources
    ]
