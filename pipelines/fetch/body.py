"""A response body read under a size cap, inflated by hand, optionally streamed to a spool file."""

from __future__ import annotations

import zlib
from collections.abc import Callable

import httpx

from pipelines.errors import FetchError
from pipelines.fetch.spool import SpoolFile


def read_body(
    source_id: str, response: httpx.Response, limit: int, out: SpoolFile | None, before_chunk: Callable[[str], None]
) -> bytes:
    """The body (or b"" when it is written to `out` as it arrives), inflated and under the size cap."""

    def body_error(message: str) -> FetchError:
        return FetchError(source_id, message, status=response.status_code, cause="body")

    too_big = f"body exceeds {limit} bytes"
    declared = response.headers.get("Content-Length", "").strip()
    if declared.isdigit() and int(declared) > limit:
        raise body_error(f"{too_big} (Content-Length {declared})")
    # We inflate gzip ourselves: httpx inflates each network chunk whole, so a small gzip bomb
    # could balloon in memory before we see it; zlib's max_length stops at the cap instead.
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding in ("gzip", "x-gzip"):
        inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
    elif encoding in ("identity", ""):
        inflater = None
    else:
        raise body_error(f"unsupported Content-Encoding {encoding!r}")

    parts: list[bytes] = []
    size = 0
    for raw in response.iter_raw():
        before_chunk(f"cut off after {size} bytes of the body")  # e.g. the refresh deadline: raises once past
        try:
            chunk = inflater.decompress(raw, limit - size + 1) if inflater else raw
        except zlib.error as exc:
            raise body_error(f"corrupt gzip body: {exc}") from exc
        size += len(chunk)
        if size > limit:
            raise body_error(too_big)
        if out is not None:
            out.write(chunk)
        else:
            parts.append(chunk)
    if inflater is not None and not inflater.eof:
        raise body_error("gzip body ends mid-stream")
    return b"".join(parts)
