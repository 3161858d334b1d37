"""`--offline`: serve the bundled samples over real HTTP on 127.0.0.1 and point every source at them.

The demo and the tests therefore run the same fetch path as production (httpx, retries, size cap,
archive), only the bytes come from pipelines/samples/.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from pipelines.sources.file import SourceSpec
from pipelines.sources.locations import SAMPLES_DIR

# The EC2 region index names each region's offer file by AWS's own path; the samples answer there.
OFFER_FILE = re.compile(r"^/offers/v1\.0/aws/AmazonEC2/\d{14}/(?P<region>[a-z0-9-]+)/index\.csv$")
OFFER_SAMPLE = "/aws/pricelist/{region}.csv"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def translate_path(self, path: str) -> str:
        offer = OFFER_FILE.match(urlsplit(path).path)
        return super().translate_path(OFFER_SAMPLE.format(region=offer["region"]) if offer else path)

    def do_POST(self) -> None:  # APIs such as RunPod's GraphQL are POSTed to: answer with the sample
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.do_GET()


@contextmanager
def serve_directory(root: Path = SAMPLES_DIR) -> Iterator[str]:
    """Serve a folder on 127.0.0.1 (a free port) for the duration of the block; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="ratecard-samples", daemon=True)
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
    offer = OFFER_FILE.match(parts.path)
    path = OFFER_SAMPLE.format(region=offer["region"]) if offer else parts.path
    return f"pipelines/samples/{path.lstrip('/')} (sample)"


def pointed_at(sources: list[SourceSpec], base_url: str) -> list[SourceSpec]:
    """The same sources, each URL replaced by its bundled sample's URL under base_url."""
    return [SourceSpec.model_validate({**s.model_dump(), "url": f"{base_url.rstrip('/')}/{s.sample}"}) for s in sources]
